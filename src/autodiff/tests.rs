//! The tape from Rust, without Python: what a standalone user of the crate relies on.

use crate::autodiff::Tape;
use crate::element::Element;
use crate::ops;
use crate::tensor::Tensor;
use crate::variable::Variable;

fn scalar(t: &Option<Tensor>) -> f32 {
    t.as_ref().expect("a gradient").to_vec::<f32>().unwrap()[0]
}

#[test]
fn gradient_of_a_polynomial_in_a_variable() {
    let x = Variable::new(&Tensor::scalar(1.0f32), "x", true, Some(vec![]), None).unwrap();
    let tape = Tape::new(false, true);
    tape.push();
    let v = x.read();
    // x^2 + 2x - 5
    let y = ops::sub(
        &ops::add(&ops::square(&v).unwrap(), &ops::mul(&v, &Tensor::scalar(2.0f32)).unwrap())
            .unwrap(),
        &Tensor::scalar(5.0f32),
    )
    .unwrap();
    tape.pop();
    let g = tape.gradient(&[y], &[x.id()], &[None]).unwrap();
    assert_eq!(scalar(&g[0]), 4.0);
    assert!(tape.gradient(&[], &[x.id()], &[]).is_err(), "a non-persistent tape answers once");
}

#[test]
fn nested_tapes_differentiate_twice_and_assign_keeps_the_buffer() {
    let x = Tensor::scalar(3.0f32);
    let (outer, inner) = (Tape::new(false, true), Tape::new(false, true));
    outer.push();
    outer.watch(&x);
    inner.push();
    inner.watch(&x);
    let y = ops::mul(&ops::square(&x).unwrap(), &x).unwrap();
    inner.pop();
    let dy = inner.gradient(&[y], &[x.id()], &[None]).unwrap().remove(0);
    outer.pop();
    assert_eq!(scalar(&dy), 27.0);
    let d2 = outer.gradient(&[dy.unwrap()], &[x.id()], &[None]).unwrap();
    assert_eq!(scalar(&d2[0]), 18.0);

    let v = Variable::new(&Tensor::scalar(1.0f32), "v", true, Some(vec![]), None).unwrap();
    let before = v.peek().storage_address();
    v.assign(&Tensor::scalar(5.0f32)).unwrap();
    assert_eq!(v.peek().storage_address(), before);
    assert_eq!(v.peek().to_vec::<f32>().unwrap(), vec![5.0]);
}

/// A graph's assignment of a value nothing else holds (an optimizer's fresh update) gives the
/// variable that value's memory instead of a copy; a value still held elsewhere, or a live read
/// of the old value, is never changed.
#[test]
fn owned_assignments_take_the_values_memory_and_never_touch_shared_values() {
    let data = |t: &Tensor| f32::unwrap(t.buffer()).unwrap().as_ptr() as usize;
    let v = Variable::new(&Tensor::from_slice(&[0.0f32; 4], &[4]).unwrap(), "v", true, None, None)
        .unwrap();
    let storage = v.peek().storage_address();
    let fresh = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let memory = data(&fresh);
    v.assign_owned(fresh).unwrap();
    assert_eq!((v.peek().storage_address(), data(&v.peek())), (storage, memory));

    let read = v.read();
    let held = Tensor::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4]).unwrap();
    v.assign_owned(held.clone()).unwrap();
    assert_ne!(data(&v.peek()), data(&held));
    assert_eq!(read.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    v.assign_owned(Tensor::from_slice(&[9.0f32; 4], &[4]).unwrap()).unwrap();
    assert_eq!(held.to_vec::<f32>().unwrap(), vec![5.0, 6.0, 7.0, 8.0]);
    assert_eq!(v.peek().to_vec::<f32>().unwrap(), vec![9.0; 4]);
    assert!(v.assign_owned(Tensor::from_slice(&[1.0f64; 4], &[4]).unwrap()).is_err());
}

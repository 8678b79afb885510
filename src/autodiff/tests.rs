//! The tape from Rust, without Python: what a standalone user of the crate relies on.

use crate::autodiff::Tape;
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

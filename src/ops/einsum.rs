//! `tf.einsum`: contracts operands pairwise (left to right) with transpose + reshape + matmul;
//! repeated letters in one operand take a diagonal, letters used nowhere else are summed first.

use super::*;

/// An operand and the letter naming each of its axes.
struct Term {
    t: Tensor,
    letters: Vec<char>,
}

fn parse_side(spec: &str, rank: usize, ellipsis_rank: &mut Option<usize>) -> Result<Vec<char>> {
    let bad = || Error::InvalidArgument(format!("Invalid einsum subscript '{spec}'"));
    let named: usize = spec.replace("...", "").chars().count();
    let mut out = Vec::new();
    let mut rest = spec;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            let n = rank.checked_sub(named).ok_or_else(bad)?;
            *ellipsis_rank = Some(ellipsis_rank.map_or(n, |e| e.max(n)));
            // Ellipsis axes get reserved names that no user letter can clash with, counted from
            // the right so that operands with fewer of them broadcast as numpy aligns shapes.
            out.extend((0..n).rev().map(|i| char::from_u32(0x3B1 + i as u32).unwrap_or('?')));
            rest = r;
        } else {
            let c = rest.chars().next().ok_or_else(bad)?;
            if !c.is_ascii_alphabetic() {
                return Err(bad());
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if out.len() != rank {
        return Err(Error::InvalidArgument(format!(
            "Expected {} dimensions for subscript '{spec}' but the operand has rank {rank}",
            out.len()
        )));
    }
    Ok(out)
}

fn dims_i64(t: &Tensor) -> Vec<i64> {
    t.shape().dims_i64()
}

/// Takes the diagonal over each letter that repeats within one operand.
fn diagonalize(mut term: Term) -> Result<Term> {
    while let Some((p, q)) = (0..term.letters.len())
        .flat_map(|p| (p + 1..term.letters.len()).map(move |q| (p, q)))
        .find(|&(p, q)| term.letters[p] == term.letters[q])
    {
        let d = term.t.dims()[p];
        if term.t.dims()[q] != d {
            return Err(Error::InvalidArgument(format!(
                "einsum: repeated subscript {} has sizes {d} and {}",
                term.letters[p],
                term.t.dims()[q]
            )));
        }
        let mut shape = vec![1i64; term.t.rank()];
        shape[p] = d as i64;
        shape[q] = d as i64;
        let eye = reshape(&math::eye(d, d, &[], term.t.dtype())?, &shape)?;
        term.t = reduce_sum(&mul(&term.t, &eye)?, Some(&[q as i64]), false)?;
        term.letters.remove(q);
    }
    Ok(term)
}

fn sum_out(term: Term, keep: &[char]) -> Result<Term> {
    let axes: Vec<i64> = (0..term.letters.len())
        .filter(|&i| !keep.contains(&term.letters[i]))
        .map(|i| i as i64)
        .collect();
    if axes.is_empty() {
        return Ok(term);
    }
    let letters = term.letters.iter().filter(|c| keep.contains(c)).copied().collect();
    Ok(Term { t: reduce_sum(&term.t, Some(&axes), false)?, letters })
}

/// TensorFlow's check of the sizes a letter names: every axis a letter (not an ellipsis)
/// names has the size its first axis has (a first size 0 counts as unset, as TensorFlow's
/// kernel takes it), so no size 1 broadcasts. Sizes unknown to the trace are compared by
/// the contraction when the graph runs; a mismatch of known sizes is a ValueError there, as
/// TensorFlow's shape function raises while building a graph.
fn check_letter_sizes(terms: &[Term]) -> Result<()> {
    let mut seen: Vec<(char, usize)> = Vec::new();
    for term in terms {
        let dims = static_shape::static_dims(&term.t);
        for (axis, (&c, d)) in term.letters.iter().zip(&dims).enumerate() {
            let Some(d) = *d else { continue };
            if !c.is_ascii() {
                continue;
            }
            match seen.iter_mut().find(|(l, _)| *l == c) {
                Some((_, e)) if *e != 0 && *e != d => {
                    let shown: Vec<String> =
                        dims.iter().map(|d| d.map_or("?".into(), |d| d.to_string())).collect();
                    let message = format!(
                        "Expected dimension {e} at axis {axis} of the input shaped [{}] but got \
                         dimension {d} [Op:Einsum]",
                        shown.join(",")
                    );
                    return Err(match crate::graph::trace::recording() {
                        true => Error::Value(message),
                        false => Error::InvalidArgument(message),
                    });
                }
                Some((_, e)) => *e = d,
                None => seen.push((c, d)),
            }
        }
    }
    Ok(())
}

/// Broadcasts size-1 ellipsis axes of either term against the same axis in the other, as
/// numpy aligns shapes (letters never broadcast: `check_letter_sizes`). Only a size 1 that
/// meets another size broadcasts; where the other size is unknown to the trace the example's
/// is read (specialising the trace).
fn broadcast_shared(a: Term, b: Term) -> Result<(Term, Term)> {
    let expand = |term: Term, other: &Term| -> Result<Term> {
        let known = static_shape::static_dims(&term.t);
        let other_known = static_shape::static_dims(&other.t);
        let mut dims: Vec<i64> = Vec::with_capacity(known.len());
        let mut changed = false;
        for (i, c) in term.letters.iter().enumerate() {
            let mut d = known[i].map_or(-1, |d| d as i64);
            if let Some(j) = other.letters.iter().position(|x| x == c && !x.is_ascii()) {
                if known[i] == Some(1) {
                    let theirs = other_known[j].unwrap_or_else(|| other.t.dims()[j]);
                    if theirs != 1 {
                        d = theirs as i64;
                        changed = true;
                    }
                }
            }
            dims.push(d);
        }
        if !changed {
            return Ok(term);
        }
        if dims.contains(&-1) {
            dims = term
                .t
                .dims()
                .iter()
                .zip(&dims)
                .map(|(&e, &d)| if d < 0 { e as i64 } else { d })
                .collect();
        }
        Ok(Term { t: broadcast_to(&term.t, &dims)?, letters: term.letters })
    };
    let a = expand(a, &b)?;
    let b = expand(b, &a)?;
    Ok((a, b))
}

/// Where `c` is among `term`'s axes.
fn axis_of(term: &Term, c: char) -> usize {
    term.letters.iter().position(|&x| x == c).unwrap_or(0)
}

fn contract(a: Term, b: Term, keep: &[char]) -> Result<Term> {
    let (a, b) = broadcast_shared(a, b)?;
    let size = |term: &Term, c: char| static_shape::static_dims(&term.t)[axis_of(term, c)];
    let batch: Vec<char> =
        a.letters.iter().filter(|c| b.letters.contains(c) && keep.contains(c)).copied().collect();
    let summed: Vec<char> =
        a.letters.iter().filter(|c| b.letters.contains(c) && !keep.contains(c)).copied().collect();
    let a_free: Vec<char> = a.letters.iter().filter(|c| !b.letters.contains(c)).copied().collect();
    let b_free: Vec<char> = b.letters.iter().filter(|c| !a.letters.contains(c)).copied().collect();
    for &c in batch.iter().chain(&summed) {
        // Sizes unknown to the trace are compared by the matmul when the graph runs.
        if let (Some(p), Some(q)) = (size(&a, c), size(&b, c)) {
            if p != q {
                return Err(Error::InvalidArgument(format!(
                    "einsum: subscript {c} has sizes {p} and {q}"
                )));
            }
        }
    }
    let order = |term: &Term, groups: [&[char]; 3]| -> Result<Tensor> {
        let perm: Vec<i64> =
            groups.iter().flat_map(|g| g.iter()).map(|&c| axis_of(term, c) as i64).collect();
        let t = transpose(&term.t, Some(&perm))?;
        let products: Vec<Vec<(&Tensor, usize)>> = groups
            .iter()
            .map(|g| g.iter().map(|&c| (&term.t, axis_of(term, c))).collect())
            .collect();
        static_shape::reshape_to_products(&t, &products)
    };
    let a3 = order(&a, [&batch, &a_free, &summed])?;
    let b3 = order(&b, [&batch, &summed, &b_free])?;
    let prod = matmul(&a3, &b3, MatMulAttrs::default())?;
    let axes: Vec<(&Tensor, usize)> = batch
        .iter()
        .chain(&a_free)
        .map(|&c| (&a.t, axis_of(&a, c)))
        .chain(b_free.iter().map(|&c| (&b.t, axis_of(&b, c))))
        .collect();
    let letters = batch.iter().chain(&a_free).chain(&b_free).copied().collect();
    Ok(Term { t: static_shape::reshape_to_axes_of(&prod, &axes)?, letters })
}

pub fn einsum(equation: &str, inputs: &[&Tensor]) -> Result<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let specs: Vec<&str> = lhs.split(',').collect();
    if specs.len() != inputs.len() {
        return Err(Error::InvalidArgument(format!(
            "Expected {} inputs for equation '{equation}', got {}",
            specs.len(),
            inputs.len()
        )));
    }
    let mut ell = None;
    let mut terms: Vec<Term> = specs
        .iter()
        .zip(inputs)
        .map(|(s, t)| Ok(Term { t: (*t).clone(), letters: parse_side(s, t.rank(), &mut ell)? }))
        .collect::<Result<_>>()?;
    let output: Vec<char> = match rhs {
        Some(r) => {
            parse_side(&r, r.replace("...", "").chars().count() + ell.unwrap_or(0), &mut ell)?
        }
        None => {
            // numpy's implicit output: ellipsis axes (leftmost first), then the letters that
            // appear once, in alphabetical order.
            let all: Vec<char> = terms.iter().flat_map(|t| t.letters.clone()).collect();
            let mut out: Vec<char> = all
                .iter()
                .filter(|c| !c.is_ascii() || all.iter().filter(|x| x == c).count() == 1)
                .copied()
                .collect();
            out.sort_by_key(|&c| if c.is_ascii() { c as i64 } else { -(c as i64) - (1 << 32) });
            out.dedup();
            out
        }
    };
    if let Some(c) = output.iter().find(|c| !terms.iter().any(|t| t.letters.contains(c))) {
        return Err(Error::InvalidArgument(format!(
            "einsum: output subscript {c} does not appear in any input"
        )));
    }
    check_letter_sizes(&terms)?;
    terms = terms.into_iter().map(diagonalize).collect::<Result<_>>()?;
    let needed_after = |terms: &[Term], from: usize| -> Vec<char> {
        output.iter().copied().chain(terms[from..].iter().flat_map(|t| t.letters.clone())).collect()
    };
    let mut acc = sum_out(terms.remove(0), &needed_after(&terms, 0))?;
    while !terms.is_empty() {
        let next = terms.remove(0);
        let keep = needed_after(&terms, 0);
        let mut keep_next = keep.clone();
        keep_next.extend(acc.letters.iter());
        let next = sum_out(next, &keep_next)?;
        acc = contract(acc, next, &keep)?;
    }
    let acc = sum_out(acc, &output)?;
    let perm: Vec<i64> = output
        .iter()
        .map(|c| acc.letters.iter().position(|x| x == c).unwrap_or(0) as i64)
        .collect();
    let _ = dims_i64;
    transpose(&acc.t, Some(&perm))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f32], d: &[usize]) -> Tensor {
        Tensor::from_slice(v, d).unwrap()
    }

    #[test]
    fn common_patterns() {
        let a = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let mm = einsum("ij,kj->ik", &[&a, &a]).unwrap();
        assert_eq!(mm.to_vec::<f32>().unwrap(), vec![14.0, 32.0, 32.0, 77.0]);
        assert_eq!(einsum("ij->ji", &[&a]).unwrap().dims(), &[3, 2]);
        assert_eq!(einsum("ij->", &[&a]).unwrap().to_vec::<f32>().unwrap(), vec![21.0]);
        let sq = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        assert_eq!(einsum("ii", &[&sq]).unwrap().to_vec::<f32>().unwrap(), vec![5.0]);
        assert_eq!(einsum("ii->i", &[&sq]).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 4.0]);
        let v = t(&[1.0, 2.0], &[2]);
        assert_eq!(
            einsum("i,j->ij", &[&v, &v]).unwrap().to_vec::<f32>().unwrap(),
            vec![1.0, 2.0, 2.0, 4.0]
        );
        let b = t(&(0..12).map(|x| x as f32).collect::<Vec<_>>(), &[2, 2, 3]);
        let bm = einsum("bij,bkj->bik", &[&b, &b]).unwrap();
        assert_eq!(bm.dims(), &[2, 2, 2]);
        let e = einsum("...ij,...jk->...ik", &[&b, &t(&[1.0; 6], &[2, 3, 1])]).unwrap();
        assert_eq!(e.dims(), &[2, 2, 1]);
        let e = einsum("...ij,...jk->...ik", &[&b, &t(&[1.0; 3], &[3, 1])]).unwrap();
        assert_eq!(e.dims(), &[2, 2, 1]);
        let e = einsum("...ij,...jk->...ik", &[&b, &t(&[1.0; 3], &[1, 3, 1])]).unwrap();
        assert_eq!(e.to_vec::<f32>().unwrap(), vec![3.0, 12.0, 21.0, 30.0]);
    }
}

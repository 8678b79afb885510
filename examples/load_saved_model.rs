//! Loads a SavedModel that Python wrote with `tf.saved_model.save` and calls one function, with
//! no Python involved:
//!
//! ```text
//! cargo run --example load_saved_model -- ./saved multiply 1,2,3
//! [3 6 9] int32 shape=[3]
//! ```
//!
//! The values become a vector of the dtype the function was saved for.

use ferroflow::graph::print::format_tensor;
use ferroflow::saved_model::FerroflowSavedModel;
use ferroflow::{ops, Result, Tensor};
use std::process::ExitCode;

fn run(dir: &str, function: &str, values: &str) -> Result<()> {
    // Functions by attribute path are ferroflow's format's (`ferroflow::SavedModel` reads
    // both formats, by signature).
    let model = FerroflowSavedModel::load(dir)?;
    let numbers = values
        .split(',')
        .map(|v| v.trim().parse::<f64>())
        .collect::<std::result::Result<Vec<f64>, _>>()
        .map_err(|e| ferroflow::Error::InvalidArgument(format!("values: {e}")))?;
    let specs = model.input_specs(function)?;
    let dtype =
        specs.first().and_then(|inputs| inputs.first()).map(|spec| spec.dtype).ok_or_else(
            || ferroflow::Error::InvalidArgument(format!("{function} takes no tensor")),
        )?;
    let input = ops::cast(&Tensor::from_slice(&numbers, &[numbers.len()])?, dtype)?;
    for output in model.call(function, &[input])? {
        println!(
            "{} {} shape={:?}",
            format_tensor(&output, 3)?,
            output.dtype().name(),
            output.dims()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: {} <saved model dir> <function path> <v1,v2,...>", args[0]);
        return ExitCode::from(2);
    }
    match run(&args[1], &args[2], &args[3]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

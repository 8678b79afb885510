//! Loading a SavedModel directory in ferroflow's format without Python: variables come back with their saved values,
//! each concrete function's graph is rebuilt against them and optimised, and functions are
//! called by their attribute path (`"multiply"`, `"encoder.__call__"`) or by signature name.

use super::format::{
    FunctionDef, ObjectDef, SavedModelFile, TensorSpecDef, FORMAT, OLDEST_VERSION, VERSION,
};
use super::graph_codec::{Decoder, SinkFactory};
use super::write::{CONSTANTS_PREFIX, MODEL_FILE, VARIABLES_PREFIX};
use crate::checkpoint::CheckpointReader;
use crate::error::{Error, Result};
use crate::graph::passes;
use crate::graph::print::Sink;
use crate::graph::{executor, Graph, Mode};
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

/// One saved concrete function, ready to run.
pub struct LoadedConcrete {
    /// The graph as saved (what `get_operations` lists).
    pub traced: Arc<Graph>,
    /// The graph that runs, after the optimisation passes.
    pub optimized: Arc<Graph>,
}

/// A loaded SavedModel in ferroflow's format: its variables (fresh, holding the saved values) and functions.
pub struct FerroflowSavedModel {
    file: SavedModelFile,
    variables: Vec<Variable>,
    concretes: Vec<LoadedConcrete>,
}

fn corrupt(dir: &Path, why: impl std::fmt::Display) -> Error {
    Error::DataLoss(format!("{}: the SavedModel is corrupt: {why}", dir.display()))
}

/// Where a loaded `tf.print` writes when no other sink is given: the stream it was saved with.
pub fn default_sink(stream: &str) -> Sink {
    if let Some(path) = stream.strip_prefix("file://") {
        let path = path.to_string();
        return Arc::new(move |text: &str| {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| crate::checkpoint::io_error(e, Path::new(&path)))?;
            f.write_all(text.as_bytes()).map_err(|e| Error::Internal(e.to_string()))
        });
    }
    let to_stdout = stream == "stdout";
    Arc::new(move |text: &str| {
        let written = if to_stdout {
            std::io::stdout().write_all(text.as_bytes())
        } else {
            std::io::stderr().write_all(text.as_bytes())
        };
        written.map_err(|e| Error::Internal(e.to_string()))
    })
}

impl FerroflowSavedModel {
    /// Loads the ferroflow-format SavedModel in `dir` (as written by `tf.saved_model.save`).
    pub fn load(dir: impl AsRef<Path>) -> Result<FerroflowSavedModel> {
        FerroflowSavedModel::load_with_sinks(dir, &default_sink)
    }

    /// As [`FerroflowSavedModel::load`], with `make_sink` choosing where each `tf.print` writes.
    pub fn load_with_sinks(
        dir: impl AsRef<Path>,
        make_sink: SinkFactory,
    ) -> Result<FerroflowSavedModel> {
        let dir = dir.as_ref();
        let model_file = dir.join(MODEL_FILE);
        let text = std::fs::read(&model_file).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound
                if super::tensorflow::TfSavedModel::is_tensorflow_format(dir) =>
            {
                Error::InvalidArgument(format!(
                    "{} holds a SavedModel that TensorFlow wrote (saved_model.pb): load it with \
                     ferroflow::SavedModel::load, which reads both formats",
                    dir.display()
                ))
            }
            std::io::ErrorKind::NotFound => Error::NotFound(format!(
                "Could not find SavedModel .json file at: {} (is {} a SavedModel directory?)",
                model_file.display(),
                dir.display()
            )),
            _ => crate::checkpoint::io_error(e, &model_file),
        })?;
        let file: SavedModelFile = serde_json::from_slice(&text).map_err(|e| corrupt(dir, e))?;
        if file.format != FORMAT {
            return Err(corrupt(dir, format!("format {:?} is not {FORMAT}", file.format)));
        }
        if !(OLDEST_VERSION..=VERSION).contains(&file.version) {
            return Err(Error::Unimplemented(format!(
                "the SavedModel at {} has {FORMAT} version {}; this version of ferroflow reads \
                 versions {OLDEST_VERSION} to {VERSION} (a newer ferroflow wrote it?)",
                dir.display(),
                file.version
            )));
        }
        check_references(&file).map_err(|why| corrupt(dir, why))?;

        let stored = CheckpointReader::open(&dir.join(VARIABLES_PREFIX))?;
        let variables = file
            .variables
            .iter()
            .map(|def| {
                let value = stored.tensor(&def.checkpoint_key)?;
                if value.dtype() != def.dtype || value.dims() != def.dims.as_slice() {
                    return Err(corrupt(dir, format!("variable {} has the wrong type", def.name)));
                }
                let device = crate::device::place_variable(def.dtype)?;
                Variable::new(&value, &def.name, def.trainable, def.declared.clone(), Some(device))
            })
            .collect::<Result<Vec<_>>>()?;

        let constants = CheckpointReader::open(&dir.join(CONSTANTS_PREFIX))?;
        let constants = (0..constants.entries().len())
            .map(|i| constants.tensor(&i.to_string()))
            .collect::<Result<Vec<_>>>()?;
        let decoder = Decoder { variables: &variables, constants: &constants, make_sink };
        let concretes = file
            .concrete_functions
            .iter()
            .map(|c| {
                let graph = decoder.decode(&c.graph)?;
                let fits =
                    graph.num_inputs == c.inputs.len() && graph.outputs.len() == c.outputs.len();
                if !fits {
                    return Err(corrupt(dir, format!("function {} has the wrong arity", c.name)));
                }
                // Folding runs ops on the file's constants: attributes no front end would
                // build must fail the load, not abort it.
                let optimized =
                    catch_unwind(AssertUnwindSafe(|| passes::optimize(&graph, &passes::ALL)))
                        .map_err(|_| {
                            corrupt(dir, format!("function {} has invalid op attributes", c.name))
                        })?;
                let optimized = Arc::new(optimized);
                Ok(LoadedConcrete { traced: Arc::new(graph), optimized })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FerroflowSavedModel { file, variables, concretes })
    }

    /// The parsed `saved_model.json` (graphs included).
    pub fn file(&self) -> &SavedModelFile {
        &self.file
    }

    /// The variables, in the order of `file().variables`.
    pub fn variables(&self) -> &[Variable] {
        &self.variables
    }

    pub fn concrete(&self, index: usize) -> Option<&LoadedConcrete> {
        self.concretes.get(index)
    }

    /// Every function's attribute path, e.g. `["multiply", "dense.__call__"]`.
    pub fn function_paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        let mut seen = vec![false; self.file.objects.len()];
        let mut queue = std::collections::VecDeque::from([(0usize, String::new())]);
        seen[0] = true;
        while let Some((node, prefix)) = queue.pop_front() {
            let object = &self.file.objects[node];
            paths.extend(object.functions.keys().map(|name| format!("{prefix}{name}")));
            for child in &object.children {
                if !std::mem::replace(&mut seen[child.node], true) {
                    queue.push_back((child.node, format!("{prefix}{}.", child.name)));
                }
            }
        }
        paths
    }

    /// The variable at an attribute path such as `"weight"` or `"layers.0.kernel"`.
    pub fn variable(&self, path: &str) -> Result<&Variable> {
        let object = self.object(path)?;
        object
            .variable
            .map(|i| &self.variables[i])
            .ok_or_else(|| Error::NotFound(format!("'{path}' is not a variable")))
    }

    /// The input specs of each saved concrete function of the function at `path`, in the
    /// order calls try them.
    pub fn input_specs(&self, path: &str) -> Result<Vec<&[TensorSpecDef]>> {
        let function = self.function(path)?;
        Ok(function
            .concrete
            .iter()
            .map(|&c| self.file.concrete_functions[c].inputs.as_slice())
            .collect())
    }

    fn function(&self, path: &str) -> Result<&FunctionDef> {
        let (parent, name) = path.rsplit_once('.').unwrap_or(("", path));
        self.object(parent)?
            .functions
            .get(name)
            .map(|&i| &self.file.functions[i])
            .ok_or_else(|| Error::NotFound(format!("the SavedModel has no function '{path}'")))
    }

    /// Calls the function at `path` with flat tensor inputs: the first saved concrete function
    /// whose input specs admit them runs.
    pub fn call(&self, path: &str, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let function = self.function(path)?;
        if function.concrete.is_empty() {
            return Err(Error::Value(format!(
                "'{path}' was never traced before saving, so the SavedModel has no graph for it"
            )));
        }
        let chosen = function.concrete.iter().find(|&&c| {
            let specs = &self.file.concrete_functions[c].inputs;
            specs.len() == inputs.len()
                && specs.iter().zip(inputs).all(|(s, t)| s.admits(t.dtype(), t.dims()))
        });
        match chosen {
            Some(&c) => self.call_concrete(c, inputs),
            None => Err(Error::InvalidArgument(format!(
                "no saved concrete function of '{path}' takes {}; saved signatures: {}",
                describe_tensors(inputs),
                function
                    .concrete
                    .iter()
                    .map(|&c| describe_specs(&self.file.concrete_functions[c].inputs))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))),
        }
    }

    /// Runs concrete function `index` on flat inputs that its specs admit.
    pub fn call_concrete(&self, index: usize, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let concrete = self
            .concretes
            .get(index)
            .ok_or_else(|| Error::NotFound(format!("no concrete function {index}")))?;
        let specs = &self.file.concrete_functions[index].inputs;
        let admitted = specs.len() == inputs.len()
            && specs.iter().zip(inputs).all(|(s, t)| s.admits(t.dtype(), t.dims()));
        if !admitted {
            return Err(Error::InvalidArgument(format!(
                "{} takes {}, got {}",
                self.file.concrete_functions[index].name,
                describe_specs(specs),
                describe_tensors(inputs)
            )));
        }
        executor::run(&concrete.optimized, inputs, Mode::Run)
    }

    /// The names of the signatures (`serving_default`, ...).
    pub fn signature_names(&self) -> Vec<&str> {
        self.file.signatures.keys().map(String::as_str).collect()
    }

    /// Calls a signature with named inputs; returns its named outputs, sorted by name.
    pub fn call_signature(
        &self,
        name: &str,
        inputs: &[(&str, Tensor)],
    ) -> Result<Vec<(String, Tensor)>> {
        let signature =
            self.file.signatures.get(name).ok_or_else(|| {
                Error::NotFound(format!("the SavedModel has no signature '{name}'"))
            })?;
        let mut flat = Vec::with_capacity(signature.inputs.len());
        for wanted in &signature.inputs {
            let value = inputs.iter().find(|(n, _)| n == wanted).ok_or_else(|| {
                Error::InvalidArgument(format!("signature '{name}' needs input '{wanted}'"))
            })?;
            flat.push(value.1.clone());
        }
        if let Some((extra, _)) =
            inputs.iter().find(|(n, _)| !signature.inputs.iter().any(|w| w == n))
        {
            return Err(Error::InvalidArgument(format!(
                "signature '{name}' has no input '{extra}' (inputs: {})",
                signature.inputs.join(", ")
            )));
        }
        let outputs = self.call_concrete(signature.concrete, &flat)?;
        Ok(signature.outputs.iter().map(|(n, i)| (n.clone(), outputs[*i].clone())).collect())
    }

    fn object(&self, path: &str) -> Result<&ObjectDef> {
        let mut object = &self.file.objects[0];
        for part in path.split('.').filter(|p| !p.is_empty()) {
            let child =
                object.children.iter().find(|c| c.name == part).ok_or_else(|| {
                    Error::NotFound(format!("the SavedModel has no object '{path}'"))
                })?;
            object = &self.file.objects[child.node];
        }
        Ok(object)
    }
}

fn describe_specs(specs: &[TensorSpecDef]) -> String {
    let parts: Vec<String> =
        specs.iter().map(|s| format!("{} {}{:?}", s.name, s.dtype.name(), s.dims)).collect();
    format!("({})", parts.join(", "))
}

fn describe_tensors(tensors: &[Tensor]) -> String {
    let parts: Vec<String> =
        tensors.iter().map(|t| format!("{}{:?}", t.dtype().name(), t.dims())).collect();
    format!("({})", parts.join(", "))
}

/// Every index in the file points at something that exists, so lookups cannot go out of range.
fn check_references(file: &SavedModelFile) -> std::result::Result<(), String> {
    let (objects, variables) = (file.objects.len(), file.variables.len());
    let (functions, concretes) = (file.functions.len(), file.concrete_functions.len());
    if objects == 0 {
        return Err("it has no root object".into());
    }
    for (i, object) in file.objects.iter().enumerate() {
        let bad_child = object.children.iter().any(|c| c.node >= objects);
        let bad_variable = object.variable.is_some_and(|v| v >= variables);
        let bad_function = object.functions.values().any(|&f| f >= functions);
        if bad_child || bad_variable || bad_function {
            return Err(format!("object {i} refers to a missing object, variable or function"));
        }
    }
    if file.functions.iter().any(|f| f.concrete.iter().any(|&c| c >= concretes)) {
        return Err("a function refers to a missing concrete function".into());
    }
    for (name, signature) in &file.signatures {
        let Some(concrete) = file.concrete_functions.get(signature.concrete) else {
            return Err(format!("signature {name} refers to a missing function"));
        };
        let fits = signature.inputs.len() == concrete.inputs.len()
            && signature.outputs.iter().all(|(_, i)| *i < concrete.outputs.len());
        if !fits {
            return Err(format!("signature {name} does not fit its function"));
        }
    }
    Ok(())
}

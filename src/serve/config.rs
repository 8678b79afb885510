//! TensorFlow Serving's `ModelServerConfig` (the `--model_config_file`), read from its protobuf
//! text format:
//!
//! ```text
//! model_config_list {
//!   config { name: "mlp" base_path: "/models/mlp" model_platform: "tensorflow" }
//!   config {
//!     name: "clf" base_path: "/models/clf"
//!     model_version_policy { specific { versions: 1 versions: 3 } }
//!   }
//! }
//! ```

use super::textproto::{self, Field, Message, Pos, Scalar, TextFormatError, Value};
use std::path::PathBuf;

/// Which numbered versions of a model are served (`FileSystemStoragePathSourceConfig`'s
/// `ServableVersionPolicy`); TensorFlow Serving's default is the latest one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionPolicy {
    Latest(usize),
    All,
    Specific(Vec<i64>),
}

impl Default for VersionPolicy {
    fn default() -> Self {
        VersionPolicy::Latest(1)
    }
}

impl VersionPolicy {
    /// The versions to serve among those on disk (`on_disk` ascending).
    pub fn choose(&self, on_disk: &[i64]) -> Vec<i64> {
        match self {
            VersionPolicy::Latest(n) => on_disk.iter().rev().take(*n).copied().collect(),
            VersionPolicy::All => on_disk.to_vec(),
            VersionPolicy::Specific(wanted) => {
                on_disk.iter().filter(|v| wanted.contains(v)).copied().collect()
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    pub name: String,
    /// Holds one directory per version, named by its number.
    pub base_path: PathBuf,
    pub policy: VersionPolicy,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{0}")]
    Syntax(#[from] TextFormatError),
    #[error("{pos}: message type \"{message}\" has no field named \"{field}\"")]
    UnknownField { pos: Pos, message: &'static str, field: String },
    #[error("{pos}: field \"{field}\" of {message} needs {expected}")]
    WrongType { pos: Pos, message: &'static str, field: String, expected: &'static str },
    #[error("{pos}: field \"{field}\" of {message} is given more than once")]
    Repeated { pos: Pos, message: &'static str, field: String },
    #[error("model config {index} has no {field}")]
    Missing { index: usize, field: &'static str },
    #[error("model name \"{0}\" is configured more than once")]
    DuplicateName(String),
    #[error("model \"{name}\": {why}")]
    Unsupported { name: String, why: String },
    #[error("the config file has no model_config_list")]
    NoModels,
}

type Parsed<T> = Result<T, ConfigError>;

fn wrong(field: &Field, message: &'static str, expected: &'static str) -> ConfigError {
    ConfigError::WrongType { pos: field.pos, message, field: field.name.clone(), expected }
}

fn unknown(field: &Field, message: &'static str) -> ConfigError {
    ConfigError::UnknownField { pos: field.pos, message, field: field.name.clone() }
}

fn submessage<'a>(field: &'a Field, message: &'static str) -> Parsed<&'a Message> {
    match &field.value {
        Value::Message(m) => Ok(m),
        Value::Scalar(_) => Err(wrong(field, message, "a message")),
    }
}

fn string(field: &Field, message: &'static str) -> Parsed<String> {
    match &field.value {
        Value::Scalar(Scalar::Str(s)) => Ok(s.clone()),
        _ => Err(wrong(field, message, "a string")),
    }
}

/// An integer as the text format writes one (decimal, or hexadecimal with `0x`).
fn integer(field: &Field, message: &'static str) -> Parsed<i64> {
    let bad = || wrong(field, message, "an integer");
    let Value::Scalar(Scalar::Number(text)) = &field.value else { return Err(bad()) };
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => digits.parse::<i64>(),
    }
    .map_err(|_| bad())?;
    Ok(if negative { -magnitude } else { magnitude })
}

/// Sets a singular field once.
fn once<T>(slot: &mut Option<T>, field: &Field, message: &'static str, value: T) -> Parsed<()> {
    if slot.is_some() {
        return Err(ConfigError::Repeated { pos: field.pos, message, field: field.name.clone() });
    }
    *slot = Some(value);
    Ok(())
}

fn version_policy(m: &Message) -> Parsed<VersionPolicy> {
    const NAME: &str = "tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy";
    let mut policy = None;
    for field in &m.fields {
        let inner = submessage(field, NAME)?;
        let chosen = match field.name.as_str() {
            "latest" => {
                const LATEST: &str = "ServableVersionPolicy.Latest";
                let mut n = None;
                for f in &inner.fields {
                    match f.name.as_str() {
                        "num_versions" => once(&mut n, f, LATEST, integer(f, LATEST)?)?,
                        _ => return Err(unknown(f, LATEST)),
                    }
                }
                let n = n.unwrap_or(1);
                VersionPolicy::Latest(usize::try_from(n.max(1)).unwrap_or(1))
            }
            "all" => match inner.fields.first() {
                Some(f) => return Err(unknown(f, "ServableVersionPolicy.All")),
                None => VersionPolicy::All,
            },
            "specific" => {
                const SPECIFIC: &str = "ServableVersionPolicy.Specific";
                let mut versions = Vec::new();
                for f in &inner.fields {
                    match f.name.as_str() {
                        "versions" => versions.push(integer(f, SPECIFIC)?),
                        _ => return Err(unknown(f, SPECIFIC)),
                    }
                }
                VersionPolicy::Specific(versions)
            }
            _ => return Err(unknown(field, NAME)),
        };
        // A oneof: the last one written wins, as protobuf's parser does.
        policy = Some(chosen);
    }
    Ok(policy.unwrap_or_default())
}

fn model_config(m: &Message, index: usize) -> Parsed<ModelConfig> {
    const NAME: &str = "tensorflow.serving.ModelConfig";
    let (mut name, mut base_path, mut platform, mut policy) = (None, None, None, None);
    for field in &m.fields {
        match field.name.as_str() {
            "name" => once(&mut name, field, NAME, string(field, NAME)?)?,
            "base_path" => once(&mut base_path, field, NAME, string(field, NAME)?)?,
            "model_platform" => once(&mut platform, field, NAME, string(field, NAME)?)?,
            "model_version_policy" => {
                once(&mut policy, field, NAME, version_policy(submessage(field, NAME)?)?)?
            }
            // Accepted and not used: labels address versions by name, which this server does
            // not route; logging is the gRPC server's.
            "version_labels" | "logging_config" => {
                submessage(field, NAME)?;
            }
            _ => return Err(unknown(field, NAME)),
        }
    }
    let name =
        name.filter(|n| !n.is_empty()).ok_or(ConfigError::Missing { index, field: "name" })?;
    let base_path = base_path
        .filter(|p| !p.is_empty())
        .ok_or(ConfigError::Missing { index, field: "base_path" })?;
    if let Some(platform) = platform.filter(|p| p != "tensorflow") {
        return Err(ConfigError::Unsupported {
            name,
            why: format!("model_platform \"{platform}\" is not served (only \"tensorflow\")"),
        });
    }
    Ok(ModelConfig { name, base_path: base_path.into(), policy: policy.unwrap_or_default() })
}

/// Parses a `ModelServerConfig` holding a `model_config_list`.
pub fn parse_model_server_config(text: &str) -> Parsed<Vec<ModelConfig>> {
    const NAME: &str = "tensorflow.serving.ModelServerConfig";
    const LIST: &str = "tensorflow.serving.ModelConfigList";
    let root = textproto::parse(text)?;
    let mut models: Vec<ModelConfig> = Vec::new();
    let mut seen_list = false;
    for field in &root.fields {
        if field.name != "model_config_list" {
            return Err(unknown(field, NAME));
        }
        seen_list = true;
        for config in &submessage(field, NAME)?.fields {
            if config.name != "config" {
                return Err(unknown(config, LIST));
            }
            let model = model_config(submessage(config, LIST)?, models.len())?;
            if models.iter().any(|m| m.name == model.name) {
                return Err(ConfigError::DuplicateName(model.name));
            }
            models.push(model);
        }
    }
    if !seen_list {
        return Err(ConfigError::NoModels);
    }
    Ok(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_models_and_their_version_policies() {
        let text = r#"
            model_config_list {
              config { name: "a" base_path: "/m/a" model_platform: "tensorflow" }
              config {
                name: 'b', base_path: "/m/b"
                model_version_policy { specific { versions: 1 versions: 3 } }
              }
              config: < name: "c" base_path: "/m/c" model_version_policy: { latest { num_versions: 2 } } >
              config { name: "d" base_path: "/m/d" model_version_policy { all {} } }
            }"#;
        let models = parse_model_server_config(text).unwrap();
        let policies: Vec<_> = models.iter().map(|m| (m.name.as_str(), m.policy.clone())).collect();
        assert_eq!(
            policies,
            [
                ("a", VersionPolicy::Latest(1)),
                ("b", VersionPolicy::Specific(vec![1, 3])),
                ("c", VersionPolicy::Latest(2)),
                ("d", VersionPolicy::All),
            ]
        );
        assert_eq!(models[1].base_path, PathBuf::from("/m/b"));
        assert_eq!(VersionPolicy::Latest(2).choose(&[1, 2, 5]), [5, 2]);
        assert_eq!(VersionPolicy::Specific(vec![1, 3]).choose(&[1, 2, 5]), [1]);
    }

    #[test]
    fn mistakes_are_typed_errors() {
        let err = |text: &str| parse_model_server_config(text).unwrap_err();
        assert!(matches!(
            err("model_config_list { config { name: \"a\" base_pat: \"/x\" } }"),
            ConfigError::UnknownField { field, .. } if field == "base_pat"
        ));
        assert_eq!(
            err("model_config_list { config { name: \"a\" } }"),
            ConfigError::Missing { index: 0, field: "base_path" }
        );
        assert!(matches!(
            err("model_config_list { config { name: 1 base_path: \"/x\" } }"),
            ConfigError::WrongType { expected: "a string", .. }
        ));
        let twice = "model_config_list { config { name: \"a\" base_path: \"/x\" } \
                     config { name: \"a\" base_path: \"/y\" } }";
        assert_eq!(err(twice), ConfigError::DuplicateName("a".into()));
        assert!(matches!(err(""), ConfigError::NoModels));
        assert!(matches!(err("model_config_list {"), ConfigError::Syntax(_)));
        let platform = "model_config_list { config { name: \"a\" base_path: \"/x\" \
                        model_platform: \"onnx\" } }";
        assert!(matches!(err(platform), ConfigError::Unsupported { .. }));
    }

    /// Mutated configs (bytes flipped, dropped, duplicated) parse or fail with an error: never
    /// a panic, and never a loop (a fixed-seed xorshift keeps the cases reproducible).
    #[test]
    fn mutated_configs_never_panic() {
        let seed = br#"model_config_list { config { name: "a\x41\101" base_path: '/m/a'
            model_version_policy < specific { versions: [1, 0x3] } > } # c
            config: { name: "b" base_path: "/b" model_version_policy { latest { num_versions: -2 } } } }"#;
        let alphabet = b"{}<>[]:;,#\"'\\x0-9aZ_ \n.";
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let mut text = seed.to_vec();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % text.len().max(1);
                match next() % 3 {
                    0 => text[at] = alphabet[(next() as usize) % alphabet.len()],
                    1 => {
                        text.remove(at);
                    }
                    _ => text.insert(at, text[at]),
                }
            }
            if let Ok(text) = std::str::from_utf8(&text) {
                let _ = parse_model_server_config(text);
            }
        }
    }
}

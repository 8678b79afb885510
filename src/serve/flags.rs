//! The command line, with TensorFlow Serving's flag names and defaults (`--name=value` or
//! `--name value`).

use std::path::PathBuf;

pub const USAGE: &str = "\
usage: ferroflow-serve --rest_api_port=PORT (--model_base_path=DIR [--model_name=NAME] | \
--model_config_file=FILE) [flags]

Serves SavedModels over TensorFlow Serving's REST API.

  --rest_api_port=PORT                  port of the REST API (required: the only API served)
  --rest_api_host=HOST                  address to listen on (default 0.0.0.0)
  --rest_api_num_threads=N              requests served in parallel (default 4 per core)
  --model_name=NAME                     name of the model (default \"default\")
  --model_base_path=DIR                 directory holding numbered version directories
  --model_config_file=FILE              ModelServerConfig in protobuf text format, for several
                                        models (takes precedence over --model_base_path)
  --file_system_poll_wait_seconds=S     seconds between looks for new versions (default 1; 0
                                        looks once at start)
  --device=DEVICE                       where models run: CPU, GPU or GPU:N (default: GPU:0
                                        when there is one, else the CPU)
  --port=PORT                           gRPC port: accepted for compatibility, not served
";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flags {
    pub rest_api_port: u16,
    pub rest_api_host: String,
    pub rest_api_num_threads: usize,
    pub model_name: String,
    pub model_base_path: Option<PathBuf>,
    pub model_config_file: Option<PathBuf>,
    pub file_system_poll_wait_seconds: i64,
    pub device: Option<String>,
    /// `--port`: accepted and ignored (no gRPC server).
    pub grpc_port: Option<u16>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlagError {
    #[error("help requested")]
    Help,
    #[error("unknown flag '{0}'")]
    Unknown(String),
    #[error("flag '--{0}' needs a value")]
    MissingValue(String),
    #[error("flag '--{flag}': '{value}' is not {expected}")]
    BadValue { flag: String, value: String, expected: &'static str },
    #[error("{0}")]
    Invalid(&'static str),
}

fn number<T: std::str::FromStr>(
    flag: &str,
    value: &str,
    expected: &'static str,
) -> Result<T, FlagError> {
    value.parse().map_err(|_| FlagError::BadValue {
        flag: flag.to_string(),
        value: value.to_string(),
        expected,
    })
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Flags, FlagError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut flags = Flags {
        rest_api_port: 0,
        rest_api_host: "0.0.0.0".into(),
        rest_api_num_threads: 4 * cores,
        model_name: "default".into(),
        model_base_path: None,
        model_config_file: None,
        file_system_poll_wait_seconds: 1,
        device: None,
        grpc_port: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            return Err(FlagError::Help);
        }
        let Some(flag) = arg.strip_prefix("--") else { return Err(FlagError::Unknown(arg)) };
        let (name, value) = match flag.split_once('=') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => {
                let value = args.next().ok_or_else(|| FlagError::MissingValue(flag.to_string()))?;
                (flag.to_string(), value)
            }
        };
        match name.as_str() {
            "rest_api_port" => flags.rest_api_port = number(&name, &value, "a port number")?,
            "port" => flags.grpc_port = Some(number(&name, &value, "a port number")?),
            "rest_api_host" => flags.rest_api_host = value,
            "rest_api_num_threads" => {
                flags.rest_api_num_threads = number(&name, &value, "a thread count")?
            }
            "model_name" => flags.model_name = value,
            "model_base_path" => flags.model_base_path = Some(value.into()),
            "model_config_file" => flags.model_config_file = Some(value.into()),
            "file_system_poll_wait_seconds" => {
                flags.file_system_poll_wait_seconds = number(&name, &value, "a number of seconds")?
            }
            "device" => flags.device = Some(value),
            _ => return Err(FlagError::Unknown(arg)),
        }
    }
    if flags.rest_api_port == 0 {
        return Err(FlagError::Invalid(
            "--rest_api_port is required: the REST API is the only one served",
        ));
    }
    if flags.model_base_path.is_none() && flags.model_config_file.is_none() {
        return Err(FlagError::Invalid(
            "Both --model_base_path and --model_config_file are empty: name the model to serve",
        ));
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn both_flag_forms_and_defaults() {
        let f = parse(args("--rest_api_port=8501 --model_base_path /m --port 8500")).unwrap();
        assert_eq!(f.rest_api_port, 8501);
        assert_eq!(f.model_base_path, Some(PathBuf::from("/m")));
        assert_eq!(f.model_name, "default");
        assert_eq!(f.grpc_port, Some(8500));
        assert_eq!(f.file_system_poll_wait_seconds, 1);
    }

    #[test]
    fn mistakes_are_reported() {
        assert_eq!(
            parse(args("--model_base_path=/m")).unwrap_err().to_string(),
            "--rest_api_port is required: the REST API is the only one served"
        );
        assert_eq!(
            parse(args("--rest_api_port=1")).unwrap_err().to_string(),
            "Both --model_base_path and --model_config_file are empty: name the model to serve"
        );
        assert_eq!(
            parse(args("--rest_api_port=x")).unwrap_err().to_string(),
            "flag '--rest_api_port': 'x' is not a port number"
        );
        assert_eq!(
            parse(args("--enable_batching=true")).unwrap_err(),
            FlagError::Unknown("--enable_batching=true".into())
        );
        assert_eq!(
            parse(args("--model_name")).unwrap_err(),
            FlagError::MissingValue("model_name".into())
        );
    }
}

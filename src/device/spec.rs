//! Device strings as TensorFlow accepts them: `CPU:0`, `/gpu:0`, `/device:GPU:0`,
//! `/job:localhost/replica:0/task:0/device:GPU:0`, partial specs such as `/job:localhost` or
//! `GPU`, and `*` for "any index". Nested scopes merge field by field, inner winning.

use crate::error::{Error, Result};

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeviceSpec {
    pub job: Option<String>,
    pub replica: Option<u32>,
    pub task: Option<u32>,
    /// Upper-case device type (`CPU`, `GPU`).
    pub device_type: Option<String>,
    /// `None` means any index.
    pub index: Option<usize>,
}

fn malformed(text: &str, why: &str) -> Error {
    Error::Value(format!("Malformed device specification '{text}': {why}"))
}

fn parse_number(text: &str, field: &str, value: &str) -> Result<u32> {
    value
        .parse::<u32>()
        .map_err(|_| malformed(text, &format!("{field} must be a number, got '{value}'")))
}

impl DeviceSpec {
    pub fn parse(text: &str) -> Result<DeviceSpec> {
        let mut spec = DeviceSpec::default();
        let trimmed = text.trim();
        for part in trimmed.split('/').filter(|p| !p.is_empty()) {
            let fields: Vec<&str> = part.split(':').collect();
            match fields.as_slice() {
                ["job", name] if !name.is_empty() => spec.job = Some((*name).to_string()),
                ["replica", n] => spec.replica = Some(parse_number(text, "replica", n)?),
                ["task", n] => spec.task = Some(parse_number(text, "task", n)?),
                ["device", kind] => spec.set_device(text, kind, None)?,
                ["device", kind, index] => spec.set_device(text, kind, Some(index))?,
                [kind] => spec.set_device(text, kind, None)?,
                [kind, index] => spec.set_device(text, kind, Some(index))?,
                _ => return Err(malformed(text, &format!("cannot parse '{part}'"))),
            }
        }
        Ok(spec)
    }

    fn set_device(&mut self, text: &str, kind: &str, index: Option<&str>) -> Result<()> {
        let upper = kind.to_ascii_uppercase();
        if !matches!(upper.as_str(), "CPU" | "GPU") {
            return Err(malformed(
                text,
                &format!("unknown device type '{kind}' (ferroflow has CPU and GPU devices)"),
            ));
        }
        if self.device_type.is_some() {
            return Err(malformed(text, "more than one device type"));
        }
        self.device_type = Some(upper);
        self.index = match index {
            None | Some("*") => None,
            Some(n) => Some(parse_number(text, "device index", n)? as usize),
        };
        Ok(())
    }

    /// `inner` applied on top of `self` (an outer scope), as nested `tf.device` scopes combine.
    pub fn merged_with(&self, inner: &DeviceSpec) -> DeviceSpec {
        let (device_type, index) = if inner.device_type.is_some() {
            (inner.device_type.clone(), inner.index)
        } else {
            (self.device_type.clone(), self.index)
        };
        DeviceSpec {
            job: inner.job.clone().or_else(|| self.job.clone()),
            replica: inner.replica.or(self.replica),
            task: inner.task.or(self.task),
            device_type,
            index,
        }
    }

    /// The canonical string (`/job:localhost/device:GPU:0`), empty when nothing is set.
    pub fn to_canonical(&self) -> String {
        let mut out = String::new();
        if let Some(job) = &self.job {
            out += &format!("/job:{job}");
        }
        if let Some(r) = self.replica {
            out += &format!("/replica:{r}");
        }
        if let Some(t) = self.task {
            out += &format!("/task:{t}");
        }
        if let Some(kind) = &self.device_type {
            let index = self.index.map_or("*".to_string(), |i| i.to_string());
            out += &format!("/device:{kind}:{index}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tensorflow_spellings() {
        for text in
            ["GPU:0", "/gpu:0", "/device:GPU:0", "/job:localhost/replica:0/task:0/device:GPU:0"]
        {
            let spec = DeviceSpec::parse(text).unwrap();
            assert_eq!(spec.device_type.as_deref(), Some("GPU"), "{text}");
            assert_eq!(spec.index, Some(0), "{text}");
        }
        assert_eq!(DeviceSpec::parse("").unwrap(), DeviceSpec::default());
        assert_eq!(DeviceSpec::parse("/cpu:*").unwrap().index, None);
    }

    #[test]
    fn rejects_malformed_strings() {
        for text in
            ["GPU:x", "/foo:bar:baz:qux", "XPU:0", "/device:GPU:0/device:CPU:0", "/replica:a"]
        {
            assert!(DeviceSpec::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn inner_scope_overrides_device_and_keeps_job() {
        let outer = DeviceSpec::parse("/job:localhost/device:CPU:0").unwrap();
        let inner = DeviceSpec::parse("GPU:1").unwrap();
        let merged = outer.merged_with(&inner);
        assert_eq!(merged.to_canonical(), "/job:localhost/device:GPU:1");
    }
}

//! Regenerates ferroflow's checked-in protobuf outputs from `proto/tensorflow/*.proto`:
//! `src/proto/tensorflow.rs` (prost messages) and `python/ferroflow/_proto/tensorflow.desc`
//! (a serialized FileDescriptorSet for the Python protobuf runtime). No protoc binary is needed:
//! protox parses the schemas in Rust. Run from the repository root: `make protos`.

use prost::Message;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root: PathBuf = std::env::args().nth(1).unwrap_or_else(|| ".".into()).into();
    let include = root.join("proto");
    let mut files: Vec<PathBuf> = std::fs::read_dir(include.join("tensorflow"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|p| p.extension().is_some_and(|x| x == "proto"));
    // A stable order keeps the descriptor set byte-identical between runs.
    files.sort();
    let relative: Vec<&Path> = files.iter().map(|p| p.strip_prefix(&include).unwrap()).collect();

    let mut compiler = protox::Compiler::new([&include])?;
    compiler.include_imports(true).include_source_info(false);
    compiler.open_files(relative)?;
    let set = compiler.file_descriptor_set();

    let desc = root.join("python/ferroflow/_proto/tensorflow.desc");
    std::fs::write(&desc, set.encode_to_vec())?;

    let out_dir = root.join("src/proto");
    std::fs::create_dir_all(&out_dir)?;
    prost_build::Config::new()
        .out_dir(&out_dir)
        // Maps in a stable order, so that what Rust serializes does not depend on hashing.
        .btree_map(["."])
        .compile_fds(set)?;
    println!("wrote {} and {}", desc.display(), out_dir.join("tensorflow.rs").display());
    Ok(())
}

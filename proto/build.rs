//! Compiles `pentagrid/v2/*.proto` with protox (a pure-Rust protobuf compiler, so no system
//! protoc is needed) and generates the tonic client and server.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["pentagrid/v2/cluster.proto"];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["."])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}

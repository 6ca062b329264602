//! The committed header is what cbindgen makes of `src/lib.rs` now. After changing the
//! ABI, `MORRIS_BLESS=1 cargo test -p morris-capi --test header` writes it again.

#[test]
fn header_is_current() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).unwrap();
    let mut made = Vec::new();
    cbindgen::Builder::new().with_config(config).with_src(format!("{dir}/src/lib.rs")).generate().expect("cbindgen reads src/lib.rs").write(&mut made);
    let path = format!("{dir}/include/morris.h");
    let committed = std::fs::read(&path).unwrap_or_default();
    if committed != made {
        if std::env::var_os("MORRIS_BLESS").is_some() {
            std::fs::write(&path, &made).unwrap();
            return;
        }
        panic!("{path} is not what cbindgen makes of src/lib.rs: run MORRIS_BLESS=1 cargo test -p morris-capi --test header");
    }
}

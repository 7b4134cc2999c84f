#![no_main]
// The entry is shared with the replay test: qibase_cli::fuzzing::http_query.
libfuzzer_sys::fuzz_target!(|data: &[u8]| qibase_cli::fuzzing::http_query(data));

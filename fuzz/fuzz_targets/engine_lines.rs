#![no_main]
// The entry is shared with the replay test: qibase_cli::fuzzing::engine_lines.
libfuzzer_sys::fuzz_target!(|data: &[u8]| qibase_cli::fuzzing::engine_lines(data));

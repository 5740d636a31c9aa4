// Compiles tests/CMakeLists.txt's precompiled header once (lw_test_pch); the
// test binaries reuse it.

// Linked into every executable of the debug (sanitizer) preset. Open MPI and its libraries keep
// allocations until exit that LeakSanitizer reports as leaks in every MPI program, so leak detection is
// off by default; AddressSanitizer's other checks and UBSan stay on. ASAN_OPTIONS still overrides this.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

// Switches for measurements: an environment variable holding
// comma-separated words (FREEDNN_SOFTMAX_TUNE=old,w8), each word turning one
// variant on. Kernels read them once, into static flags.
#pragma once

namespace fdnn {

// Whether `word` is one of the comma-separated words of environment
// variable `var` (exact match: "old" does not match "oldbwd").
bool env_has_word(const char *var, const char *word);

// Whether a path switch `var` is on: unset, empty or anything but "0".
bool env_on(const char *var);

// A non-negative integer from environment variable `var`, or `fallback`
// (unset, empty, not a number, negative).
long env_long(const char *var, long fallback);

}  // namespace fdnn

// Switches for measurements: an environment variable holding
// comma-separated words (FREEDNN_SOFTMAX_TUNE=old,w8), each word turning one
// variant on. Kernels read them once, into static flags.
#pragma once

namespace fdnn {

// Whether `word` is one of the comma-separated words of environment
// variable `var` (exact match: "old" does not match "oldbwd").
bool env_has_word(const char *var, const char *word);

}  // namespace fdnn

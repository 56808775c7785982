// env_has_word: the comma-separated switch words of the FREEDNN_*_TUNE
// variables match whole words only. (An internal function: this test is
// its own small executable, see tests/CMakeLists.txt.)
#include "core/env_words.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

using fdnn::env_has_word;

// Sets (or, for nullptr, unsets) FREEDNN_TEST_WORDS for one scope.
struct ScopedEnv {
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() { unsetenv(name_); }
  const char *name_;
};

TEST(EnvWords, MatchesWholeWords) {
  const ScopedEnv v("FREEDNN_TEST_WORDS", "old,w8,exact");
  EXPECT_TRUE(env_has_word("FREEDNN_TEST_WORDS", "old"));
  EXPECT_TRUE(env_has_word("FREEDNN_TEST_WORDS", "w8"));
  EXPECT_TRUE(env_has_word("FREEDNN_TEST_WORDS", "exact"));
  EXPECT_FALSE(env_has_word("FREEDNN_TEST_WORDS", "ol"));
  EXPECT_FALSE(env_has_word("FREEDNN_TEST_WORDS", "w"));
  EXPECT_FALSE(env_has_word("FREEDNN_TEST_WORDS", "oldbwd"));
  EXPECT_FALSE(env_has_word("FREEDNN_TEST_WORDS", ""));
}

TEST(EnvWords, PrefixOfALongerWordIsNoMatch) {
  const ScopedEnv v("FREEDNN_TEST_WORDS", "oldbwd");
  EXPECT_FALSE(env_has_word("FREEDNN_TEST_WORDS", "old"));
  EXPECT_TRUE(env_has_word("FREEDNN_TEST_WORDS", "oldbwd"));
}

TEST(EnvWords, UnsetOrEmpty) {
  {
    const ScopedEnv v("FREEDNN_TEST_WORDS", nullptr);
    EXPECT_FALSE(env_has_word("FREEDNN_TEST_WORDS", "old"));
  }
  const ScopedEnv v("FREEDNN_TEST_WORDS", ",,");
  EXPECT_FALSE(env_has_word("FREEDNN_TEST_WORDS", "old"));
}

}  // namespace

// The handwritten-digits data set as examples/digits_data.py writes it (see
// that script for the format), split into a training and a test set.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace demo {

struct Digits {
  int rows = 0, cols = 0;
  std::vector<float> images;  // n * rows * cols, pixels scaled to [0, 1]
  std::vector<int> labels;    // n, 0..9
  int size() const { return static_cast<int>(labels.size()); }
  int pixels() const { return rows * cols; }
};

// Reads the file; returns false with a message in *error when it cannot.
inline bool load_digits(const std::string &path, Digits *all, std::string *error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = "cannot open " + path + " (make demo writes it with examples/digits_data.py)";
    return false;
  }
  char magic[8];
  uint32_t header[3];
  bool ok = std::fread(magic, 1, 8, f) == 8 && std::memcmp(magic, "FDIGITS1", 8) == 0 &&
            std::fread(header, sizeof(uint32_t), 3, f) == 3 && header[0] > 0 && header[1] > 0 && header[2] > 0;
  if (ok) {
    all->rows = static_cast<int>(header[1]);
    all->cols = static_cast<int>(header[2]);
    std::vector<uint8_t> record(all->pixels() + 1);
    for (uint32_t i = 0; ok && i < header[0]; ++i) {
      ok = std::fread(record.data(), 1, record.size(), f) == record.size() && record.back() <= 9;
      for (int p = 0; ok && p < all->pixels(); ++p) all->images.push_back(record[p] / 16.0f);
      if (ok) all->labels.push_back(record.back());
    }
  }
  std::fclose(f);
  if (!ok) *error = path + " is not a digits file written by examples/digits_data.py";
  return ok;
}

// Images [begin, end) of a set.
inline Digits slice(const Digits &all, int begin, int end) {
  Digits part;
  part.rows = all.rows;
  part.cols = all.cols;
  part.images.assign(all.images.begin() + static_cast<size_t>(begin) * all.pixels(),
                     all.images.begin() + static_cast<size_t>(end) * all.pixels());
  part.labels.assign(all.labels.begin() + begin, all.labels.begin() + end);
  return part;
}

}  // namespace demo

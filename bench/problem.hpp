// What one bench problem is: the knobs in force when its shape string was
// read, and the shapes themselves. The grammar is benchdnn's: knobs are a
// state that applies to every later problem on the command line until changed
// or `--reset`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bench {

using Dims = std::vector<int64_t>;

struct Knobs {
  std::string op = "transform";
  std::string alg;            // op-specific; empty: the op's default
  std::string dt = "f32";     // every tensor's type unless sdt/ddt say otherwise
  std::string sdt;            // source tensors' type (empty: dt)
  std::string ddt;            // destination tensor's type (empty: dt)
  std::string cdt;            // compute type of optensor/reduce (empty: f32, f64 for f64 data)
  std::string stag = "abx";   // source layout (see layout.hpp); abx = dense, dims in order
  std::string dtag = "abx";   // destination layout
  double alpha = 1.0;
  double alpha2 = 1.0;        // optensor's second scale
  std::optional<double> beta; // empty: the op's default (1 for add, 0 otherwise)
  double value = 0.5;         // set: the value written
  std::string indices = "none";  // reduce: none, 8, 16, 32, 64 (bits)
  std::string nan = "noprop";    // optensor/reduce NaN propagation: noprop, prop
  std::string dir = "FWD_D";     // conv: FWD_D, BWD_D, BWD_W (benchdnn's names)

  const std::string &src_dt() const { return sdt.empty() ? dt : sdt; }
  const std::string &dst_dt() const { return ddt.empty() ? dt : ddt; }
};

struct Problem {
  Knobs knobs;
  std::vector<Dims> shapes;  // "AxBxC:DxExF" -> {{A,B,C},{D,E,F}}
  // A problem token that starts with a letter, as written: a descriptor
  // string in the op's own grammar (conv: "mb8ic64ih56oc64oh56kh3ph1");
  // `shapes` is then empty.
  std::string descriptor;
  std::string name;          // optional label (--name=...), shown in tables

  double beta_or(double op_default) const { return knobs.beta ? *knobs.beta : op_default; }
};

// "64x256x56x56" for one shape, "a:b" for several.
std::string dims_to_string(const Dims &d);
std::string shapes_to_string(const std::vector<Dims> &shapes);
int64_t element_count(const Dims &d);

}  // namespace bench

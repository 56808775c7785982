#include "core/sdpa_pattern.hpp"

#include <sstream>

#include "core/error.hpp"
#include "core/sdpa_matcher.hpp"

namespace fdnn {

std::string SdpaFeatures::to_string() const {
  std::ostringstream os;
  const char *sep = "";
  auto add = [&](bool on, const char *name) {
    if (!on) return;
    os << sep << name;
    sep = ",";
  };
  add(scale, "scale");
  add(bias, "bias");
  add(alibi, "alibi");
  add(padding, "padding");
  add(causal, "causal");
  add(window, "window");
  return os.str();
}

Support match_sdpa(const graph::Graph &g, SdpaPattern *out) {
  if (g.ops().size() < 7) return Support::no("an attention graph has at least 7 operations");
  try {
    sdpa_match::Matcher m(g);
    SdpaPattern p;
    m.run(p);
    *out = std::move(p);
    return Support::yes();
  } catch (const sdpa_match::NoMatch &e) {
    return Support::no("not scaled dot-product attention: " + e.why);
  } catch (const Error &e) {
    return Support::no(e.what());
  }
}

}  // namespace fdnn

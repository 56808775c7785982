#include "op.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bench {

void check_status(cudnnStatus_t s, const char *call) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  char last[1024] = {0};
  cudnnGetLastErrorString(last, sizeof last);
  std::string msg = std::string(call) + " returned " + cudnnGetErrorString(s);
  if (last[0] != '\0') msg += ": " + std::string(last);
  throw ApiError(s, msg);
}

OpRegistry &OpRegistry::instance() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::add(std::unique_ptr<OpFamily> family) {
  families_.push_back(std::move(family));
  std::sort(families_.begin(), families_.end(),
            [](const auto &a, const auto &b) { return std::string(a->name()) < b->name(); });
}

const OpFamily *OpRegistry::find(const std::string &name) const {
  for (const auto &f : families_)
    if (name == f->name()) return f.get();
  return nullptr;
}

std::vector<const OpFamily *> OpRegistry::all() const {
  std::vector<const OpFamily *> out;
  for (const auto &f : families_) out.push_back(f.get());
  return out;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string blend_text(const Problem &p) {
  std::string t;
  if (p.knobs.alpha != 1) t += " --alpha=" + number_text(p.knobs.alpha);
  if (p.knobs.beta) t += " --beta=" + number_text(*p.knobs.beta);
  return t;
}

std::string problem_text(const Problem &p) {
  std::string text = "--op=" + p.knobs.op;
  if (const OpFamily *f = OpRegistry::instance().find(p.knobs.op)) {
    std::string knobs = f->knobs_text(p);
    if (!knobs.empty()) text += " " + knobs;
  }
  return text + " " + (p.descriptor.empty() ? shapes_to_string(p.shapes) : p.descriptor);
}

CheckResult all_finite(const std::vector<double> &values, const std::string &what) {
  CheckResult r;
  r.passed = true;
  for (double v : values)
    if (!std::isfinite(v)) {
      r.passed = false;
      r.detail = what + " has a non-finite element";
      break;
    }
  return r;
}

}  // namespace bench

#include "backend/plan_json.hpp"

#include <cudnn_version.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "backend/descriptor.hpp"
#include "backend/engine_descriptors.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

// --- writing -------------------------------------------------------------------

// Attribute elements as JSON: numbers for integers, enums and floats (doubles
// are written with enough digits to read back exactly), [numerator,
// denominator] for fractions.
json values_of(const AttrValue &v) {
  json out = json::array();
  for (int64_t i = 0; i < v.count; ++i) {
    switch (v.type) {
      case CUDNN_TYPE_FLOAT: out.push_back(v.at<float>(i)); break;
      case CUDNN_TYPE_DOUBLE: out.push_back(v.at<double>(i)); break;
      case CUDNN_TYPE_BOOLEAN: out.push_back(v.at<bool>(i)); break;
      case CUDNN_TYPE_INT64: out.push_back(v.at<int64_t>(i)); break;
      case CUDNN_TYPE_CHAR: out.push_back(static_cast<int>(v.at<char>(i))); break;
      case CUDNN_TYPE_FRACTION: {
        const auto f = v.at<cudnnFraction_t>(i);
        out.push_back(json::array({f.numerator, f.denominator}));
        break;
      }
      default: out.push_back(v.at<int32_t>(i)); break;  // INT32 and every enum
    }
  }
  return out;
}

class Writer {
 public:
  // Index of the record in `descriptors`, children written first.
  int64_t add(const std::shared_ptr<const DescriptorRecord> &r) {
    auto it = index_.find(r.get());
    if (it != index_.end()) return it->second;
    json attrs = json::array();
    for (const DescriptorRecord::Attribute &a : r->attributes) {
      json values;
      if (a.value.type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        values = json::array();
        for (const auto &c : a.children) values.push_back(add(c));
      } else {
        values = values_of(a.value);
      }
      attrs.push_back({{"name", static_cast<int>(a.name)}, {"type", static_cast<int>(a.value.type)}, {"values", values}});
    }
    const int64_t i = static_cast<int64_t>(descriptors.size());
    descriptors.push_back({{"type", static_cast<int>(r->type)}, {"attributes", attrs}});
    index_[r.get()] = i;
    return i;
  }
  json descriptors = json::array();

 private:
  std::map<const DescriptorRecord *, int64_t> index_;
};

// --- reading -------------------------------------------------------------------

AttrValue value_from(cudnnBackendAttributeType_t type, const json &values) {
  AttrValue v;
  v.type = type;
  v.count = static_cast<int64_t>(values.size());
  v.bytes.resize(static_cast<size_t>(v.count) * element_size(type));
  unsigned char *p = v.bytes.data();
  auto put = [&](auto x) {
    std::memcpy(p, &x, sizeof x);
    p += sizeof x;
  };
  for (const json &e : values) {
    switch (type) {
      case CUDNN_TYPE_FLOAT: put(e.get<float>()); break;
      case CUDNN_TYPE_DOUBLE: put(e.get<double>()); break;
      case CUDNN_TYPE_BOOLEAN: put(static_cast<bool>(e.get<bool>())); break;
      case CUDNN_TYPE_INT64: put(e.get<int64_t>()); break;
      case CUDNN_TYPE_CHAR: put(static_cast<char>(e.get<int>())); break;
      case CUDNN_TYPE_FRACTION: put(cudnnFraction_t{e.at(0).get<int64_t>(), e.at(1).get<int64_t>()}); break;
      default: put(e.get<int32_t>()); break;
    }
  }
  return v;
}

// Descriptors made while loading, destroyed when loading ends: the states
// they produce are shared and live on in the plan.
struct Loaded {
  std::vector<std::unique_ptr<Descriptor>> all;
  Descriptor &make(cudnnBackendDescriptorType_t type) {
    all.push_back(Descriptor::create(type));
    return *all.back();
  }
};

void set_scalar_descriptor(Descriptor &d, cudnnBackendAttributeName_t name, const Descriptor &v) {
  cudnnBackendDescriptor_t h = const_cast<Descriptor *>(&v);
  d.set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &h);
}

}  // namespace

std::string plan_to_json(const EngineConfigState &config) {
  const GraphState &graph = *config.engine->graph;
  if (graph.op_records.empty()) return {};
  Writer w;
  json ops = json::array();
  for (const auto &r : graph.op_records) ops.push_back(w.add(r));
  json knobs = json::array();
  for (const KnobChoice &k : config.knobs) knobs.push_back({static_cast<int>(k.type), k.value});
  const json doc = {{"freednn_plan", kFormatVersion},
                    {"cudnn_version", CUDNN_VERSION},
                    {"engine", config.engine->engine->name()},
                    {"knobs", knobs},
                    {"descriptors", w.descriptors},
                    {"operations", ops}};
  return doc.dump();
}

std::shared_ptr<const EngineConfigState> config_from_json(const std::string &text, cudnnContext &handle) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception &e) {
    fail(CUDNN_STATUS_BAD_PARAM, "the JSON representation does not parse: ", e.what());
  }
  Loaded loaded;
  std::string engine_name;
  std::vector<std::pair<int, int64_t>> knobs;
  std::vector<Descriptor *> ops;
  try {
    check_arg(doc.is_object() && doc.value("freednn_plan", 0) == kFormatVersion,
              "the JSON representation is not a FreeDNN execution plan of format ", kFormatVersion);
    check_supported(doc.at("cudnn_version").get<int>() == CUDNN_VERSION, "the JSON plan was saved by version ",
                    doc.at("cudnn_version").get<int>(), ", this library is ", CUDNN_VERSION);
    engine_name = doc.at("engine").get<std::string>();
    for (const json &k : doc.at("knobs")) knobs.emplace_back(k.at(0).get<int>(), k.at(1).get<int64_t>());
    std::vector<Descriptor *> made;
    for (const json &d : doc.at("descriptors")) {
      Descriptor &desc = loaded.make(static_cast<cudnnBackendDescriptorType_t>(d.at("type").get<int>()));
      for (const json &a : d.at("attributes")) {
        const auto name = static_cast<cudnnBackendAttributeName_t>(a.at("name").get<int>());
        const auto type = static_cast<cudnnBackendAttributeType_t>(a.at("type").get<int>());
        if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
          std::vector<cudnnBackendDescriptor_t> handles;
          for (const json &i : a.at("values")) {
            const auto idx = i.get<size_t>();
            check_arg(idx < made.size(), "descriptor ", made.size(), " refers to descriptor ", idx,
                      ", which does not come before it");
            handles.push_back(made[idx]);
          }
          desc.set(name, type, static_cast<int64_t>(handles.size()), handles.data());
        } else {
          const AttrValue v = value_from(type, a.at("values"));
          desc.set(name, type, v.count, v.bytes.data());
        }
      }
      desc.finalize();
      made.push_back(&desc);
    }
    for (const json &i : doc.at("operations")) {
      const auto idx = i.get<size_t>();
      check_arg(idx < made.size(), "operation ", idx, " is not a descriptor of the plan");
      ops.push_back(made[idx]);
    }
  } catch (const json::exception &e) {
    fail(CUDNN_STATUS_BAD_PARAM, "the JSON representation is malformed: ", e.what());
  }

  Descriptor &graph = loaded.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  cudnnHandle_t h = &handle;
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
  std::vector<cudnnBackendDescriptor_t> op_handles(ops.begin(), ops.end());
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(op_handles.size()),
            op_handles.data());
  graph.finalize();

  const std::vector<const Engine *> all = engines_by_global_index();
  int64_t index = -1;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i]->name() == engine_name) index = static_cast<int64_t>(i);
  check_supported(index >= 0, "the plan's engine ", engine_name, " is not in this build");
  Descriptor &engine = loaded.make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  set_scalar_descriptor(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, graph);
  engine.set(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index);
  engine.finalize();

  std::vector<cudnnBackendDescriptor_t> choices;
  for (const auto &[type, value] : knobs) {
    Descriptor &c = loaded.make(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    const auto t = static_cast<cudnnBackendKnobType_t>(type);
    c.set(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &t);
    c.set(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value);
    c.finalize();
    choices.push_back(&c);
  }
  Descriptor &config = loaded.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  set_scalar_descriptor(config, CUDNN_ATTR_ENGINECFG_ENGINE, engine);
  config.set(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(choices.size()),
             choices.data());
  config.finalize();
  return static_cast<const EngineConfigDescriptor &>(config).state();
}

}  // namespace fdnn::backend

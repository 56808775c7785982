// The object behind cudnnBackendDescriptor_t. Every descriptor type is a
// subclass that lists the attributes it accepts (name, type, element counts)
// and checks them at finalize; the base class does the generic part of
// cudnnBackendSetAttribute / GetAttribute / Finalize with cuDNN 9's statuses.
#pragma once

#include <cudnn_graph.h>

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "backend/attributes.hpp"

namespace fdnn::backend {

struct AttrSpec {
  cudnnBackendAttributeName_t name;
  cudnnBackendAttributeType_t type;
  int64_t min_count = 1;
  int64_t max_count = 1;
  bool settable = true;  // false: computed by finalize, get only
  // Also accepted on set (FLOAT for a DOUBLE scalar, HALF-less alphas ...).
  cudnnBackendAttributeType_t alt_type = type;
  // false: set only (cuDNN answers NOT_SUPPORTED to a get).
  bool gettable = true;
  // A set with a wrong type is BAD_PARAM rather than BAD_PARAM_ATTRIBUTE_TYPE
  // (cuDNN 9 differs per attribute: RNG seed, concat axis ...).
  bool wrong_type_is_bad_param = false;
  // Setting a read-only attribute is NOT_SUPPORTED in cuDNN 9, except for a
  // few where it answers BAD_PARAM (heuristics results, ...).
  bool read_only_set_is_bad_param = false;
};

// What a finalized descriptor was made of: its type and the attributes its
// caller set (computed ones, handles and data pointers left out), with
// descriptor-valued attributes as the records of those descriptors. Taken at
// finalize, so it outlives the descriptors themselves; execution plans
// serialise a graph's records to JSON and rebuild descriptors from them.
struct DescriptorRecord {
  struct Attribute {
    cudnnBackendAttributeName_t name;
    AttrValue value;  // for BACKEND_DESCRIPTOR: type and count only
    std::vector<std::shared_ptr<const DescriptorRecord>> children;
  };
  cudnnBackendDescriptorType_t type;
  std::vector<Attribute> attributes;
};

class Descriptor {
 public:
  static constexpr uint32_t kAlive = 0x42414b44;  // "BAKD"
  uint32_t magic = kAlive;

  Descriptor(cudnnBackendDescriptorType_t type, std::vector<AttrSpec> specs);
  virtual ~Descriptor() = default;
  cudnnBackendDescriptorType_t type() const { return type_; }
  bool finalized() const { return finalized_; }

  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count, const void *elements);
  void get(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t requested, int64_t *count,
           void *elements) const;
  void finalize();

  // Makes this descriptor a finalized copy of `other` (same type): how a
  // get of a BACKEND_DESCRIPTOR attribute fills the caller's descriptors.
  void assign_from(const Descriptor &other);

  // Set at finalize; null when a descriptor-valued attribute names a
  // descriptor that has no record (made by the library, not finalized).
  const std::shared_ptr<const DescriptorRecord> &record() const { return record_; }

  // Creates a descriptor of `type`; NOT_SUPPORTED for types we lack.
  static std::unique_ptr<Descriptor> create(cudnnBackendDescriptorType_t type);

 protected:
  // Type-specific finalize: validate the attributes and build the state.
  virtual void do_finalize() = 0;
  // Copies the subclass state (called by assign_from after the base part).
  virtual void copy_state_from(const Descriptor &other) = 0;
  // Whether get works before finalize (cuDNN allows it for a few types).
  virtual bool readable_before_finalize() const { return false; }

  bool has(cudnnBackendAttributeName_t name) const { return values_.count(name) != 0; }
  const AttrValue &value(cudnnBackendAttributeName_t name) const;  // INTERNAL_ERROR when unset
  template <class T>
  T scalar(cudnnBackendAttributeName_t name, T fallback) const {
    return has(name) ? value(name).at<T>(0) : fallback;
  }
  template <class T>
  std::vector<T> array(cudnnBackendAttributeName_t name) const {
    return has(name) ? value(name).all<T>() : std::vector<T>{};
  }
  // Throws BAD_PARAM naming the attribute when it was not set.
  void require(cudnnBackendAttributeName_t name, const char *what) const;
  // The descriptors set on a BACKEND_DESCRIPTOR attribute, checked to be live,
  // of `type` and finalized (BAD_PARAM otherwise).
  std::vector<const Descriptor *> finalized_descriptors(cudnnBackendAttributeName_t name,
                                                        cudnnBackendDescriptorType_t type,
                                                        const char *what) const;
  // Stores a computed (read-only) attribute.
  void put(cudnnBackendAttributeName_t name, AttrValue v) { values_[name] = std::move(v); }
  // For descriptors the library builds itself (heuristics results).
  void mark_finalized() { finalized_ = true; }

 private:
  const AttrSpec *spec(cudnnBackendAttributeName_t name) const;
  cudnnBackendDescriptorType_t type_;
  std::vector<AttrSpec> specs_;
  std::map<int, AttrValue> values_;
  bool finalized_ = false;
  std::shared_ptr<const DescriptorRecord> record_;
  std::shared_ptr<const DescriptorRecord> make_record() const;
};

// Checks a C handle: BAD_PARAM_NULL_POINTER for NULL, BAD_PARAM when it is
// not a live backend descriptor.
Descriptor &live(cudnnBackendDescriptor_t d, const char *name);

// Subclasses register a factory per descriptor type at load time.
using Factory = std::function<std::unique_ptr<Descriptor>()>;
void register_factory(cudnnBackendDescriptorType_t type, Factory f);

#define FDNN_BACKEND_DESCRIPTOR(Type, Class)                                                  \
  namespace {                                                                                \
  const bool fdnn_backend_registered_##Class = [] {                                          \
    ::fdnn::backend::register_factory(Type, [] { return std::make_unique<Class>(); });        \
    return true;                                                                             \
  }();                                                                                       \
  }

}  // namespace fdnn::backend

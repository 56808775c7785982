#include "backend/descriptor.hpp"

#include <cstring>

#include "core/error.hpp"

namespace fdnn::backend {

namespace {

std::map<int, Factory> &factories() {
  static std::map<int, Factory> all;
  return all;
}

}  // namespace

void register_factory(cudnnBackendDescriptorType_t type, Factory f) { factories()[type] = std::move(f); }

std::unique_ptr<Descriptor> Descriptor::create(cudnnBackendDescriptorType_t type) {
  auto it = factories().find(type);
  if (it == factories().end()) {
    // cuDNN 9 answers an unknown type (and the read-only INTERMEDIATE_INFO)
    // with this status.
    if (type < CUDNN_BACKEND_POINTWISE_DESCRIPTOR || type > CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR ||
        type == CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR)
      fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "descriptorType = ", static_cast<int>(type),
           ": not a descriptor type that can be created");
    fail(CUDNN_STATUS_NOT_SUPPORTED, "descriptorType = ", static_cast<int>(type),
         ": this backend descriptor type is not implemented in FreeDNN yet");
  }
  return it->second();
}

Descriptor::Descriptor(cudnnBackendDescriptorType_t type, std::vector<AttrSpec> specs)
    : type_(type), specs_(std::move(specs)) {}

const AttrSpec *Descriptor::spec(cudnnBackendAttributeName_t name) const {
  for (const AttrSpec &s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

void Descriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
                     const void *elements) {
  if (finalized_)
    fail(CUDNN_STATUS_BAD_PARAM, "attribute ", static_cast<int>(name),
         ": the descriptor is finalized and can no longer be changed");
  const AttrSpec *s = spec(name);
  if (s == nullptr)
    fail(CUDNN_STATUS_BAD_PARAM, "attribute ", static_cast<int>(name),
         " is not an attribute of a descriptor of type ", static_cast<int>(type_));
  if (!s->settable)
    fail(s->read_only_set_is_bad_param ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_NOT_SUPPORTED, "attribute ",
         static_cast<int>(name), " is read-only: it is computed by finalize and cannot be set");
  if (type != s->type && type != s->alt_type)
    fail(s->wrong_type_is_bad_param ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "attribute ",
         static_cast<int>(name), " takes ",
         type_name(s->type), ", not ", type_name(type));
  if (count < s->min_count || count > s->max_count) {
    if (s->min_count == s->max_count)
      fail(CUDNN_STATUS_BAD_PARAM, "attribute ", static_cast<int>(name), ": elementCount = ", count,
           ", expected ", s->min_count);
    fail(CUDNN_STATUS_BAD_PARAM, "attribute ", static_cast<int>(name), ": elementCount = ", count, ", expected ",
         s->min_count, " to ", s->max_count);
  }
  if (count > 0 && elements == nullptr)
    fail(CUDNN_STATUS_BAD_PARAM, "attribute ", static_cast<int>(name), ": arrayOfElements is NULL");
  AttrValue v;
  v.type = type;
  v.count = count;
  v.bytes.resize(static_cast<size_t>(count) * element_size(type));
  if (count > 0) std::memcpy(v.bytes.data(), elements, v.bytes.size());
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
    for (int64_t i = 0; i < count; ++i) live(v.at<cudnnBackendDescriptor_t>(i), "an element of arrayOfElements");
  values_[name] = std::move(v);
}

void Descriptor::get(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t requested,
                     int64_t *count, void *elements) const {
  if (!finalized_ && !readable_before_finalize())
    fail(CUDNN_STATUS_NOT_INITIALIZED, "attribute ", static_cast<int>(name),
         ": the descriptor must be finalized before its attributes can be read");
  const AttrSpec *s = spec(name);
  if (s == nullptr)
    fail(CUDNN_STATUS_BAD_PARAM, "attribute ", static_cast<int>(name), " does not belong to descriptor type ",
         static_cast<int>(type_));
  if (!s->gettable)
    fail(CUDNN_STATUS_NOT_SUPPORTED, "attribute ", static_cast<int>(name), " can be set but not read back");
  if (type != s->type && type != s->alt_type)
    fail(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "attribute ", static_cast<int>(name), " is of ",
         type_name(s->type), ", not ", type_name(type));
  if (requested < 0) fail(CUDNN_STATUS_BAD_PARAM, "requestedElementCount = ", requested, ": must not be negative");
  auto it = values_.find(name);
  const int64_t have = it == values_.end() ? 0 : it->second.count;
  if (requested == 0 || elements == nullptr) {
    // A count query.
    check_not_null(count, "elementCount");
    *count = have;
    return;
  }
  const int64_t n = std::min(requested, have);
  if (n > 0) {
    const AttrValue &v = it->second;
    if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
      // The caller passes descriptors it created; they become copies of ours.
      for (int64_t i = 0; i < n; ++i) {
        cudnnBackendDescriptor_t dst = static_cast<cudnnBackendDescriptor_t *>(elements)[i];
        live(dst, "an element of arrayOfElements").assign_from(live(v.at<cudnnBackendDescriptor_t>(i), "stored"));
      }
    } else if (type == v.type) {
      std::memcpy(elements, v.bytes.data(), static_cast<size_t>(n) * element_size(type));
    } else if (v.type == CUDNN_TYPE_FRACTION && type == CUDNN_TYPE_INT64) {
      // Resample geometry is stored as fractions and readable as INT64 too.
      for (int64_t i = 0; i < n; ++i) {
        const auto f = v.at<cudnnFraction_t>(i);
        static_cast<int64_t *>(elements)[i] = f.denominator != 0 ? f.numerator / f.denominator : 0;
      }
    } else {
      // A scalar stored as the alternative type (FLOAT vs DOUBLE).
      for (int64_t i = 0; i < n; ++i) {
        const double d = v.type == CUDNN_TYPE_DOUBLE ? v.at<double>(i) : v.at<float>(i);
        if (type == CUDNN_TYPE_DOUBLE) static_cast<double *>(elements)[i] = d;
        else static_cast<float *>(elements)[i] = static_cast<float>(d);
      }
    }
  }
  if (count != nullptr) *count = n;
}

void Descriptor::finalize() {
  if (finalized_) fail(CUDNN_STATUS_BAD_PARAM, "the descriptor is already finalized");
  do_finalize();
  finalized_ = true;
  record_ = make_record();
}

std::shared_ptr<const DescriptorRecord> Descriptor::make_record() const {
  auto r = std::make_shared<DescriptorRecord>();
  r->type = type_;
  for (const auto &[name, v] : values_) {
    const AttrSpec *s = spec(static_cast<cudnnBackendAttributeName_t>(name));
    if (s == nullptr || !s->settable || v.type == CUDNN_TYPE_HANDLE || v.type == CUDNN_TYPE_VOID_PTR) continue;
    DescriptorRecord::Attribute a{static_cast<cudnnBackendAttributeName_t>(name), v, {}};
    if (v.type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
      a.value.bytes.clear();
      for (cudnnBackendDescriptor_t h : v.all<cudnnBackendDescriptor_t>()) {
        const auto *child = static_cast<const Descriptor *>(h);
        if (child->magic != kAlive || child->record_ == nullptr) return nullptr;
        a.children.push_back(child->record_);
      }
    }
    r->attributes.push_back(std::move(a));
  }
  return r;
}

void Descriptor::assign_from(const Descriptor &other) {
  if (other.type_ != type_)
    fail(CUDNN_STATUS_BAD_PARAM, "a descriptor of type ", static_cast<int>(type_), " cannot receive a copy of type ",
         static_cast<int>(other.type_));
  values_ = other.values_;
  finalized_ = other.finalized_;
  record_ = other.record_;
  copy_state_from(other);
}

const AttrValue &Descriptor::value(cudnnBackendAttributeName_t name) const {
  auto it = values_.find(name);
  if (it == values_.end()) fail(CUDNN_STATUS_INTERNAL_ERROR, "attribute ", static_cast<int>(name), " is not set");
  return it->second;
}

void Descriptor::require(cudnnBackendAttributeName_t name, const char *what) const {
  if (!has(name)) fail(CUDNN_STATUS_BAD_PARAM, what, " (attribute ", static_cast<int>(name), ") is required");
}

std::vector<const Descriptor *> Descriptor::finalized_descriptors(cudnnBackendAttributeName_t name,
                                                                  cudnnBackendDescriptorType_t type,
                                                                  const char *what) const {
  std::vector<const Descriptor *> out;
  if (!has(name)) return out;
  for (cudnnBackendDescriptor_t h : value(name).all<cudnnBackendDescriptor_t>()) {
    const Descriptor &d = live(h, what);
    if (d.type() != type)
      fail(CUDNN_STATUS_BAD_PARAM, what, " is a descriptor of type ", static_cast<int>(d.type()), ", expected ",
           static_cast<int>(type));
    if (!d.finalized()) fail(CUDNN_STATUS_BAD_PARAM, what, " is not finalized");
    out.push_back(&d);
  }
  return out;
}

Descriptor &live(cudnnBackendDescriptor_t d, const char *name) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, name, " is NULL");
  auto *p = static_cast<Descriptor *>(d);
  if (p->magic != Descriptor::kAlive)
    fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live backend descriptor (destroyed, or not made by "
                                       "cudnnBackendCreateDescriptor)");
  return *p;
}

}  // namespace fdnn::backend

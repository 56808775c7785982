// Create / check / destroy for every legacy descriptor struct. Each struct has
// a `magic` field equal to its kAlive while the descriptor lives; destroy
// clears it so that a later use fails cleanly while the memory is not reused.
#pragma once

#include "core/error.hpp"

namespace fdnn {

template <class Desc>
void create_descriptor(Desc **out, const char *name) {
  check_not_null(out, name);
  *out = new Desc();
}

// `what` names the kind for the message ("tensor", "op-tensor", ...).
template <class Desc>
Desc &live_descriptor(Desc *d, const char *name, const char *what) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
  if (d->magic != Desc::kAlive)
    fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live ", what,
         " descriptor (destroyed, or not made by its Create call)");
  return *d;
}

// Destroying NULL succeeds, like free(NULL).
template <class Desc>
void destroy_descriptor(Desc *d, const char *name, const char *what) {
  if (d == nullptr) return;
  Desc &live = live_descriptor(d, name, what);
  live.magic = 0;
  delete &live;
}

}  // namespace fdnn

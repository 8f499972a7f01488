#include "base/error.h"

#include <utility>

namespace llmconform {
namespace {

// Whether `e` carries its location in fields (else its message is all).
bool Structured(const Error& e) { return e.pointer || e.position || !e.what.empty(); }

// `e`'s message rebuilt from its parts.
Error Rebuilt(Error e) {
  e.message = ErrorText(e);
  return e;
}

}  // namespace

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidInput:
      return "invalid input";
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kIo:
      return "I/O error";
    case ErrorKind::kInternal:
      return "internal error";
  }
  return "error";
}

std::string ErrorText(const Error& e) {
  if (!Structured(e)) return e.message;
  std::string out;
  if (e.position) {
    out += e.position->file;
    out += ':';
    if (e.position->line > 0) {
      out += std::to_string(e.position->line) + ':';
      if (e.position->column > 0) out += std::to_string(e.position->column) + ':';
    }
    out += ' ';
  }
  if (!e.context.empty()) out += e.context + ": ";
  if (e.pointer) {
    out += e.pointer->empty() ? "/" : *e.pointer;
    out += ": ";
  }
  out += e.what;
  return out;
}

Error Error::AtPointer(std::string pointer, std::string what, ErrorKind kind) {
  Error e;
  e.kind = kind;
  e.pointer = std::move(pointer);
  e.what = std::move(what);
  return Rebuilt(std::move(e));
}

Error Error::At(FilePosition position, std::optional<std::string> pointer, std::string what,
                ErrorKind kind) {
  Error e;
  e.kind = kind;
  e.position = std::move(position);
  e.pointer = std::move(pointer);
  e.what = std::move(what);
  return Rebuilt(std::move(e));
}

Error Error::Within(std::string_view context) const {
  Error e = *this;
  if (!Structured(e)) {
    e.message = std::string(context) + ": " + e.message;
    return e;
  }
  e.context = e.context.empty() ? std::string(context) : std::string(context) + ": " + e.context;
  return Rebuilt(std::move(e));
}

Error Error::Placed(FilePosition position) const {
  Error e = *this;
  // An error from a message alone keeps that message as its explanation.
  if (!Structured(e)) e.what = e.message;
  e.position = std::move(position);
  return Rebuilt(std::move(e));
}

Error Error::Under(std::string_view prefix) const {
  Error e = *this;
  if (!Structured(e)) e.what = e.message;
  e.pointer = std::string(prefix) + e.pointer.value_or("");
  return Rebuilt(std::move(e));
}

}  // namespace llmconform

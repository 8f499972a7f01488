#include "base/error.h"

namespace llmconform {

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

}  // namespace llmconform

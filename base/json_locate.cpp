#include "base/json_locate.h"

#include <string.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace llmconform {

LineColumn LineColumnOf(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  // memchr and memrchr: a caller places thousands of errors in one long line.
  const char* const begin = text.data();
  const char* const end = begin + offset;
  std::size_t lines = 1;
  for (const char* p = begin; p < end;) {
    const void* lf = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!lf) break;
    ++lines;
    p = static_cast<const char*>(lf) + 1;
  }
  const void* last = offset ? ::memrchr(begin, '\n', offset) : nullptr;
  return {lines,
          last ? static_cast<std::size_t>(end - static_cast<const char*>(last)) : offset + 1};
}

namespace {

struct Walk {
  bool complete = false;   // the whole pointer was found
  std::size_t offset = 0;  // of the deepest value found on the way
};

// yaml-cpp's parse events as JSON sees them: a value (a scalar, null or
// alias; `scalar` is its text, or null), the start of an array or object,
// and its end.
class JsonEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { Value(mark, nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Value(mark, nullptr); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    Value(mark, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Open(mark, false);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Open(mark, true);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapEnd() override { Close(); }

 protected:
  virtual void Value(const YAML::Mark& mark, const std::string* scalar) = 0;
  virtual void Open(const YAML::Mark& mark, bool is_map) = 0;
  virtual void Close() = 0;
};

// Follows a pointer through yaml-cpp's parse events: no tree is built, so
// memory stays in the depth of the text (a tree of a 4 MB text took 1 GB).
// The last of duplicate keys wins, as nlohmann keeps it: a later one
// forgets what was found below an earlier one.
class PointerWalker final : public JsonEvents {
 public:
  explicit PointerWalker(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {}

  Walk Result() const {
    Walk w;
    for (std::size_t d = found_.size(); d-- > 0;) {
      if (found_[d]) {
        w.offset = *found_[d];
        w.complete = d == tokens_.size();
        break;
      }
    }
    return w;
  }

 private:
  struct Frame {
    bool is_map = false;
    bool on_path = false;  // this container is the value tokens_[0, depth) names
    std::size_t depth = 0;
    std::size_t index = 0;      // a sequence: of the next element
    bool expecting_key = true;  // a map
    std::string key;            // a map: of the value that comes next
    bool key_is_text = false;
  };

  // Where a value that starts here sits: whether it is on the pointer's path
  // and at what depth. nullopt for a map's key, which is not a value.
  struct Place {
    bool on_path;
    std::size_t depth;
  };
  std::optional<Place> PlaceOf(const std::string* scalar) {
    if (frames_.empty()) return Place{true, 0};
    Frame& f = frames_.back();
    const std::size_t depth = f.depth + 1;
    const bool deeper = f.on_path && f.depth < tokens_.size();
    if (!f.is_map) {
      const bool on = deeper && tokens_[f.depth] == std::to_string(f.index);
      ++f.index;
      return Place{on, depth};
    }
    if (f.expecting_key) {
      f.expecting_key = false;
      f.key_is_text = scalar != nullptr;
      if (scalar) f.key = *scalar;
      return std::nullopt;
    }
    f.expecting_key = true;
    return Place{deeper && f.key_is_text && tokens_[f.depth] == f.key, depth};
  }

  void Note(const Place& p, const YAML::Mark& mark) {
    if (!p.on_path) return;
    if (found_.size() < tokens_.size() + 1) found_.resize(tokens_.size() + 1);
    found_[p.depth] = static_cast<std::size_t>(std::max(0, mark.pos));
    for (std::size_t d = p.depth + 1; d < found_.size(); ++d) found_[d].reset();
  }

  void Value(const YAML::Mark& mark, const std::string* scalar) override {
    if (auto p = PlaceOf(scalar)) Note(*p, mark);
  }
  void Close() override { frames_.pop_back(); }

  void Open(const YAML::Mark& mark, bool is_map) override {
    const auto p = PlaceOf(nullptr);
    // A container as a map's key (YAML allows it, JSON does not) is walked
    // as off the path.
    const Place place = p ? *p : Place{false, frames_.empty() ? 0 : frames_.back().depth + 1};
    Note(place, mark);
    frames_.push_back({.is_map = is_map, .on_path = place.on_path, .depth = place.depth});
  }

  std::vector<std::string> tokens_;
  std::vector<Frame> frames_;
  std::vector<std::optional<std::size_t>> found_;  // by depth, on the path
};

// Parses `text` once and follows `pointer` as far as it leads. nullopt when
// the text is blank or not JSON, or the pointer is malformed.
std::optional<Walk> WalkPointer(std::string_view text, std::string_view pointer) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  if (text.size() > kMaxLocatedBytes) return std::nullopt;
  try {
    // nlohmann reads the pointer (and its ~0 ~1 escapes) and throws on a
    // malformed one; yaml-cpp reads the text and throws on a broken one.
    const nlohmann::json::json_pointer parsed{std::string(pointer)};
    std::vector<std::string> tokens;
    for (auto p = parsed; !p.empty(); p = p.parent_pointer()) tokens.push_back(p.back());
    std::reverse(tokens.begin(), tokens.end());
    PointerWalker walker(std::move(tokens));
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(walker)) return std::nullopt;
    return walker.Result();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Thrown by OffsetRecorder when a table of the text would not be right or
// small: the caller walks each pointer instead.
struct GiveUp {};

// Records the offset of every value by its pointer ("/a/0/b~1c"), within
// `budget` bytes of pointers: a long key above a long array repeats in every
// element's pointer. Gives up on a repeated key (the last one wins, and
// what was recorded under an earlier one would stay).
class OffsetRecorder final : public JsonEvents {
 public:
  OffsetRecorder(std::unordered_map<std::string, std::size_t>& out, std::size_t budget)
      : out_(out), budget_(budget) {}

 private:
  struct Frame {
    bool is_map = false;
    std::string path;  // of the container; "" for the root
    std::size_t index = 0;
    bool expecting_key = true;
    std::optional<std::string> key;        // nullopt: a key that is not text
    std::unordered_set<std::string> keys;  // a map: its keys so far
  };

  void Spend(std::size_t bytes) {
    if (bytes > budget_) throw GiveUp{};
    budget_ -= bytes;
  }

  static std::string Escaped(const std::string& token) {
    std::string out;
    for (char c : token) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }

  // The pointer of a value that starts now; nullopt for a map's key or a
  // value under a key that is not text.
  std::optional<std::string> PathOf(const std::string* scalar) {
    if (frames_.empty()) return std::string();
    Frame& f = frames_.back();
    if (!f.is_map) return f.path + "/" + std::to_string(f.index++);
    if (f.expecting_key) {
      f.expecting_key = false;
      f.key = scalar ? std::optional<std::string>(*scalar) : std::nullopt;
      if (scalar) {
        Spend(scalar->size());
        if (!f.keys.insert(*scalar).second) throw GiveUp{};
      }
      return std::nullopt;
    }
    f.expecting_key = true;
    if (!f.key) return std::nullopt;
    return f.path + "/" + Escaped(*f.key);
  }

  void Record(const std::string& path, const YAML::Mark& mark) {
    Spend(path.size() + 32);
    out_[path] = static_cast<std::size_t>(std::max(0, mark.pos));
  }

  void Value(const YAML::Mark& mark, const std::string* scalar) override {
    if (auto path = PathOf(scalar)) Record(*path, mark);
  }
  void Close() override { frames_.pop_back(); }

  void Open(const YAML::Mark& mark, bool is_map) override {
    auto path = PathOf(nullptr);
    if (path) Record(*path, mark);
    // Below a key that is not text nothing can be named: its path is one no
    // pointer reaches ("/" followed by a byte no escaped token holds).
    frames_.push_back({.is_map = is_map, .path = path ? *path : std::string("\x01")});
  }

  std::unordered_map<std::string, std::size_t>& out_;
  std::size_t budget_;
  std::vector<Frame> frames_;
};

}  // namespace

std::optional<std::size_t> LocateJsonPointer(std::string_view text, std::string_view pointer) {
  auto walk = WalkPointer(text, pointer);
  if (!walk || !walk->complete) return std::nullopt;
  return walk->offset;
}

std::size_t LocateNearestJsonPointer(std::string_view text, std::string_view pointer) {
  if (auto walk = WalkPointer(text, pointer)) return walk->offset;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? 0 : first;
}

}  // namespace llmconform

namespace llmconform {

JsonOffsets::JsonOffsets(std::string_view text)
    : text_(text), first_(text.find_first_not_of(" \t\r\n")) {
  if (first_ == std::string_view::npos) {
    first_ = 0;
    return;
  }
  if (text.size() > kMaxLocatedBytes) return;
  try {
    OffsetRecorder recorder(offsets_, kTableBytesPerByte * text.size() + 4096);
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    parser.HandleNextDocument(recorder);
    table_ = true;
  } catch (const GiveUp&) {
    offsets_.clear();  // each pointer is walked instead
  } catch (const std::exception&) {
    offsets_.clear();  // not JSON: everything is placed at the first non-blank
  }
}

std::size_t JsonOffsets::Nearest(std::string_view pointer) const {
  if (!table_) return LocateNearestJsonPointer(text_, pointer);
  std::string p(pointer);
  for (;;) {
    if (auto it = offsets_.find(p); it != offsets_.end()) return it->second;
    if (p.empty()) return first_;
    p.erase(p.rfind('/') == std::string::npos ? 0 : p.rfind('/'));
  }
}

Error PlacedInText(const Error& e, std::string_view name, std::string_view text,
                   std::size_t first_line, const JsonOffsets* offsets) {
  const std::string pointer = e.pointer.value_or("");
  const LineColumn at = LineColumnOf(
      text, offsets ? offsets->Nearest(pointer) : LocateNearestJsonPointer(text, pointer));
  return e.Placed({std::string(name), first_line + at.line - 1, at.column});
}

}  // namespace llmconform

// YAML front matter of Markdown files (Document-as-State, seed 001 §2.2):
// splitting a file into front matter and body, YAML to JSON and back.
//
// Text in, text out; no file access.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "base/error.h"
#include "protocols/toolcalls/tool_error.h"

namespace llmconform::toolcalls {

struct FrontmatterSplit {
  bool present = false;  // the file starts with a `---` line and has a closing `---` or `...` line
  std::string yaml;      // the lines between the fences
  std::string body;      // everything after the closing fence's line, byte for byte
};

// The front matter must start at the first byte (no BOM, no blank line).
FrontmatterSplit SplitFrontmatter(std::string_view text);

// Parses YAML that must be a mapping (an empty document is an empty one).
// Scalars are typed by the YAML 1.2 core schema; quoted scalars are strings.
// Duplicate keys, non-scalar keys and nesting deeper than 64 are errors.
// Errors carry the position: "line 3, column 7: illegal map value".
std::expected<OJson, Error> ParseYamlMapping(std::string_view yaml);

// Block-style YAML of a mapping: strings double-quoted, empty collections as
// `[]` and `{}`. ParseYamlMapping(EmitYaml(m)) == m for every mapping of
// JSON values.
std::string EmitYaml(const OJson& mapping);

// "---\n" + EmitYaml(mapping) + "---\n" + body.
std::string ComposeFrontmatter(const OJson& mapping, std::string_view body);

}  // namespace llmconform::toolcalls

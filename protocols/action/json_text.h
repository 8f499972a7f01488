// Small JSON-text helpers shared by the action protocol's reader and writer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/json_quote.h"
#include "base/utf8.h"  // IsValidUtf8, which these helpers' users need too

namespace llmconform::action {

// `s` as a JSON string literal, for messages: base/json_quote.h's QuoteJson.
using ::llmconform::QuoteJson;

// "a string", "a number", "an object", … for messages that say what was
// found: base/json.h's JsonTypeNameWithArticle.
using ::llmconform::JsonTypeNameWithArticle;

}  // namespace llmconform::action

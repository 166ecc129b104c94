#include "engine/file/Json.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace sonotype::engine;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace
{
// Parses `text` expecting failure; returns the error message (or "no error").
std::string parseError (std::string_view text)
{
    try
    {
        parseJson (text);
    }
    catch (const JsonError& e)
    {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST_CASE ("JSON documents parse into values", "[json]")
{
    const auto value = parseJson (" \t\r\n{\"a\": [1, -2.5e3, true, false, null], \"b\": {\"c\": {\"d\": []}}, \"e\": {}}\n");
    REQUIRE (value.isObject());
    const auto& a = value.at ("a").asArray();
    REQUIRE (a.size() == 5);
    CHECK (a[0].asInt() == 1);
    CHECK (a[1].asNumber() == -2500.0);
    CHECK (a[2].asBool());
    CHECK_FALSE (a[3].asBool());
    CHECK (a[4].isNull());
    CHECK (a[4].type() == JsonValue::Type::null);
    CHECK (value.at ("b").at ("c").at ("d").asArray().empty());
    CHECK (value.at ("e").asObject().empty());

    SECTION ("members keep file order and are found by key")
    {
        const auto ordered = parseJson (R"({"z": 1, "a": 2, "m": 3})");
        const auto& members = ordered.asObject();
        REQUIRE (members.size() == 3);
        CHECK (members[0].first == "z");
        CHECK (members[1].first == "a");
        CHECK (members[2].first == "m");
        REQUIRE (ordered.find ("a") != nullptr);
        CHECK (ordered.find ("a")->asInt() == 2);
        CHECK (ordered.find ("missing") == nullptr);
        CHECK (parseJson ("[1]").find ("a") == nullptr); // not an object
    }

    SECTION ("any value can be the document")
    {
        CHECK (parseJson ("null").isNull());
        CHECK (parseJson (" true ").asBool());
        CHECK (parseJson ("\"x\"").asString() == "x");
        CHECK (parseJson ("42").asInt() == 42);
        CHECK (parseJson ("[]").isArray());
    }

    SECTION ("the same key may appear in different objects")
    {
        CHECK_NOTHROW (parseJson (R"({"a": {"a": 1}, "b": {"a": 2}})"));
    }
}

TEST_CASE ("JSON strings decode escapes and keep UTF-8", "[json]")
{
    CHECK (parseJson (R"("\"\\\/\b\f\n\r\t")").asString() == "\"\\/\b\f\n\r\t");
    CHECK (parseJson (R"("\u0041\u00e9\u00E9\u20ac")").asString() == "A\xc3\xa9\xc3\xa9\xe2\x82\xac");
    CHECK (parseJson (R"("\ud83c\udfb5")").asString() == "\xf0\x9f\x8e\xb5"); // U+1F3B5 from a surrogate pair
    CHECK (parseJson (R"("\udbff\udfff")").asString() == "\xf4\x8f\xbf\xbf"); // U+10FFFF, the last code point
    CHECK (parseJson (R"("\u0000")").asString() == std::string (1, '\0'));
    CHECK (parseJson ("\"d\xc3\xa9j\xc3\xa0 \xe2\x82\xac \xf0\x9f\x8e\xb5\"").asString() == "d\xc3\xa9j\xc3\xa0 \xe2\x82\xac \xf0\x9f\x8e\xb5");
    CHECK (parseJson ("\"\x7f\"").asString() == "\x7f"); // DEL is not a control character to JSON
    CHECK (parseJson ("\"\"").asString().empty());
}

TEST_CASE ("JSON numbers convert exactly as strtod does", "[json]")
{
    const auto number = [] (std::string_view text) { return parseJson (text).asNumber(); };

    CHECK (number ("0") == 0.0);
    CHECK_FALSE (std::signbit (number ("0")));
    CHECK (number ("-0") == 0.0);
    CHECK (std::signbit (number ("-0")));
    CHECK (std::signbit (number ("-0.0e5")));
    CHECK (number ("1.5e3") == 1500.0);
    CHECK (number ("1.5E+3") == 1500.0);
    CHECK (number ("-2.5e-3") == -0.0025);
    CHECK (number ("0.1") == 0.1); // correctly rounded
    CHECK (number ("1e-300") == 1e-300);
    CHECK (number ("4.9e-324") == std::numeric_limits<double>::denorm_min());
    CHECK (number ("1.7976931348623157e308") == std::numeric_limits<double>::max());
    CHECK (number ("123456789012345678901234567890") == 123456789012345678901234567890.0);
    CHECK (number ("1" + std::string (400, '0') + "e-400") == 1.0);

    SECTION ("underflow rounds to zero, keeping the sign")
    {
        CHECK (number ("1e-400") == 0.0);
        CHECK (std::signbit (number ("-1e-400")));
        CHECK (number ("0." + std::string (400, '0') + "1e10") == 0.0);
        CHECK (number ("1e-99999999999999999999999") == 0.0);
        CHECK (number ("0e99999999999999999999999") == 0.0);
    }

    SECTION ("overflow to infinity is an error")
    {
        CHECK_THROWS_WITH (parseJson ("1e309"), Contains ("at byte 0") && Contains ("number out of range"));
        CHECK_THROWS_WITH (parseJson ("[-1e309]"), Contains ("at byte 1") && Contains ("number out of range"));
        CHECK_THROWS_WITH (parseJson ("1.8e308"), Contains ("number out of range"));
        CHECK_THROWS_WITH (parseJson ("1" + std::string (400, '0')), Contains ("number out of range"));
        // A long mantissa outweighs a negative exponent: this is 1e490, not a tiny number.
        CHECK_THROWS_WITH (parseJson ("1" + std::string (500, '0') + "e-10"), Contains ("number out of range"));
        CHECK_THROWS_WITH (parseJson ("1e99999999999999999999999"), Contains ("number out of range"));
    }
}

TEST_CASE ("JSON integers are exact over the int64 range", "[json]")
{
    const auto integer = [] (std::string_view text) { return parseJson (text).asInt(); };

    CHECK (integer ("0") == 0);
    CHECK (integer ("-0") == 0);
    CHECK (integer ("-17") == -17);
    CHECK (integer ("1e3") == 1000);
    CHECK (integer ("2.0") == 2);
    CHECK (integer ("9007199254740993") == 9007199254740993LL); // 2^53 + 1: not a double
    CHECK (integer ("9223372036854775807") == std::numeric_limits<int64_t>::max());
    CHECK (integer ("-9223372036854775808") == std::numeric_limits<int64_t>::min());
    CHECK (integer ("-9.223372036854775808e18") == std::numeric_limits<int64_t>::min());
    CHECK (parseJson ("9223372036854775807").asNumber() == 9223372036854775808.0);

    CHECK_THROWS_WITH (integer ("9223372036854775808"), Contains ("expected an integer, found one beyond the int64 range"));
    CHECK_THROWS_WITH (integer ("9223372036854775808.0"), Contains ("expected an integer, found 9223372036854775808"));
    // This one rounds to -2^63 as a double, but the digits say it is out of range.
    CHECK_THROWS_WITH (integer ("-9223372036854775809"), Contains ("expected an integer, found one beyond the int64 range"));
    CHECK_THROWS_WITH (integer ("-99999999999999999999"), Contains ("beyond the int64 range"));
    CHECK_THROWS_WITH (integer ("9.3e18"), Contains ("expected an integer"));
    CHECK_THROWS_WITH (integer ("1e19"), Contains ("expected an integer"));
    CHECK_THROWS_WITH (integer ("1.5"), Contains ("expected an integer, found 1.5"));
    CHECK_THROWS_WITH (integer ("1e-300"), Contains ("expected an integer"));
    CHECK_THROWS_WITH (JsonValue::number (std::nan ("")).asInt(), Contains ("expected an integer, found nan"));
    CHECK_THROWS_WITH (JsonValue::number (HUGE_VAL).asInt(), Contains ("expected an integer"));
    CHECK_THROWS_WITH (integer ("\"1\""), Contains ("expected a number, found a string"));
}

TEST_CASE ("malformed JSON is rejected with its byte offset", "[json]")
{
    SECTION ("structure")
    {
        CHECK (parseError ("{\"a\" 1}") == "JSON error at byte 5: expected ':'");
        CHECK_THROWS_WITH (parseJson (""), Contains ("at byte 0") && Contains ("unexpected end of input"));
        CHECK_THROWS_WITH (parseJson (" \n "), Contains ("at byte 3") && Contains ("unexpected end of input"));
        CHECK_THROWS_WITH (parseJson ("[1, 2"), Contains ("at byte 5") && Contains ("expected ',' or ']'"));
        CHECK_THROWS_WITH (parseJson ("[1 2]"), Contains ("at byte 3") && Contains ("expected ',' or ']'"));
        CHECK_THROWS_WITH (parseJson ("[1,]"), Contains ("at byte 3") && Contains ("unexpected character ']'"));
        CHECK_THROWS_WITH (parseJson ("[,1]"), Contains ("unexpected character ','"));
        CHECK_THROWS_WITH (parseJson ("{\"a\": 1,}"), Contains ("at byte 8") && Contains ("expected a string key"));
        CHECK_THROWS_WITH (parseJson ("{\"a\": 1 \"b\": 2}"), Contains ("expected ',' or '}'"));
        CHECK_THROWS_WITH (parseJson ("{1: 2}"), Contains ("expected a string key"));
        CHECK_THROWS_WITH (parseJson ("{'a': 2}"), Contains ("expected a string key"));
        CHECK_THROWS_WITH (parseJson ("{\"a\"}"), Contains ("expected ':'"));
        CHECK_THROWS_WITH (parseJson ("{"), Contains ("at byte 1") && Contains ("expected a string key"));
        CHECK_THROWS_WITH (parseJson ("tru"), Contains ("invalid literal (expected 'true')"));
        CHECK_THROWS_WITH (parseJson ("nul"), Contains ("invalid literal (expected 'null')"));
        CHECK_THROWS_WITH (parseJson ("True"), Contains ("unexpected character 'T'"));
        CHECK_THROWS_WITH (parseJson ("\xef\xbb\xbf{}"), Contains ("at byte 0") && Contains ("unexpected character '\\xef'")); // BOM
        CHECK_THROWS_WITH (parseJson ("// comment\n1"), Contains ("unexpected character '/'"));
    }

    SECTION ("trailing garbage")
    {
        CHECK_THROWS_WITH (parseJson ("1 2"), Contains ("at byte 2") && Contains ("unexpected characters after the JSON value"));
        CHECK_THROWS_WITH (parseJson ("{} x"), Contains ("after the JSON value"));
        CHECK_THROWS_WITH (parseJson ("[1]]"), Contains ("at byte 3") && Contains ("after the JSON value"));
        CHECK_THROWS_WITH (parseJson ("truefalse"), Contains ("after the JSON value"));
        CHECK_THROWS_WITH (parseJson (std::string_view ("1\0", 2)), Contains ("at byte 1") && Contains ("after the JSON value"));
    }

    SECTION ("numbers")
    {
        CHECK_THROWS_WITH (parseJson ("01"), Contains ("at byte 1") && Contains ("leading zeros are not allowed"));
        CHECK_THROWS_WITH (parseJson ("-01"), Contains ("leading zeros are not allowed"));
        CHECK_THROWS_WITH (parseJson ("[00]"), Contains ("leading zeros are not allowed"));
        CHECK_THROWS_WITH (parseJson ("NaN"), Contains ("unexpected character 'N'"));
        CHECK_THROWS_WITH (parseJson ("nan"), Contains ("invalid literal"));
        CHECK_THROWS_WITH (parseJson ("Infinity"), Contains ("unexpected character 'I'"));
        CHECK_THROWS_WITH (parseJson ("-Infinity"), Contains ("invalid number"));
        CHECK_THROWS_WITH (parseJson ("+1"), Contains ("unexpected character '+'"));
        CHECK_THROWS_WITH (parseJson (".5"), Contains ("unexpected character '.'"));
        CHECK_THROWS_WITH (parseJson ("1."), Contains ("digits expected after '.'"));
        CHECK_THROWS_WITH (parseJson ("1.e5"), Contains ("digits expected after '.'"));
        CHECK_THROWS_WITH (parseJson ("1e"), Contains ("digits expected in the exponent"));
        CHECK_THROWS_WITH (parseJson ("1e+"), Contains ("digits expected in the exponent"));
        CHECK_THROWS_WITH (parseJson ("-"), Contains ("at byte 1") && Contains ("invalid number"));
        CHECK_THROWS_WITH (parseJson ("0x10"), Contains ("after the JSON value"));
    }

    SECTION ("strings")
    {
        CHECK_THROWS_WITH (parseJson ("\"abc"), Contains ("at byte 4") && Contains ("unterminated string"));
        CHECK_THROWS_WITH (parseJson ("\"abc\\"), Contains ("unterminated string"));
        CHECK_THROWS_WITH (parseJson ("\"a\tb\""), Contains ("at byte 2") && Contains ("control character in string"));
        CHECK_THROWS_WITH (parseJson ("\"a\nb\""), Contains ("control character in string"));
        CHECK_THROWS_WITH (parseJson (std::string_view ("\"a\0b\"", 5)), Contains ("control character in string"));
        CHECK_THROWS_WITH (parseJson ("\"\x1f\""), Contains ("control character in string"));
    }

    SECTION ("escapes")
    {
        CHECK_THROWS_WITH (parseJson ("\"ab\\x\""), Contains ("at byte 3") && Contains ("invalid escape '\\x'"));
        CHECK_THROWS_WITH (parseJson ("\"\\'\""), Contains ("invalid escape '\\''"));
        CHECK_THROWS_WITH (parseJson ("\"\\U0041\""), Contains ("invalid escape '\\U'"));
        CHECK_THROWS_WITH (parseJson ("\"\\0\""), Contains ("invalid escape '\\0'"));
        CHECK_THROWS_WITH (parseJson ("\"\\\x01\""), Contains ("invalid escape '\\\\x01'"));
        CHECK_THROWS_WITH (parseJson ("\"\\u12\""), Contains ("invalid \\u escape"));
        CHECK_THROWS_WITH (parseJson ("\"\\u12"), Contains ("at byte 5") && Contains ("invalid \\u escape"));
        CHECK_THROWS_WITH (parseJson ("\"\\u12G4\""), Contains ("at byte 5") && Contains ("invalid \\u escape"));
        CHECK_THROWS_WITH (parseJson ("\"\\u-123\""), Contains ("invalid \\u escape"));
    }

    SECTION ("unpaired surrogates")
    {
        CHECK_THROWS_WITH (parseJson (R"("x\ud800")"), Contains ("at byte 2") && Contains ("unpaired surrogate"));
        CHECK_THROWS_WITH (parseJson (R"("\ud800x")"), Contains ("unpaired surrogate"));
        CHECK_THROWS_WITH (parseJson (R"("\ud800\n")"), Contains ("unpaired surrogate"));
        CHECK_THROWS_WITH (parseJson (R"("\ud800\ud800")"), Contains ("unpaired surrogate"));
        CHECK_THROWS_WITH (parseJson (R"("\ud800\u0041")"), Contains ("unpaired surrogate"));
        CHECK_THROWS_WITH (parseJson (R"("\udc00")"), Contains ("unpaired surrogate"));
        CHECK_THROWS_WITH (parseJson (R"("\udfff\ud800")"), Contains ("unpaired surrogate"));
        CHECK_THROWS_WITH (parseJson (R"("\ud800\u12")"), Contains ("invalid \\u escape"));
    }

    SECTION ("invalid UTF-8")
    {
        const char* const malformed[] = {
            "\"\xff\"",             // never valid
            "\"\xfe\"",             // never valid
            "\"\x80\"",             // stray continuation byte
            "\"\xc3\"",             // lead byte without its continuation
            "\"\xc3x\"",            // continuation byte expected
            "\"\xc0\xaf\"",         // overlong '/'
            "\"\xc1\xbf\"",         // overlong
            "\"\xe0\x80\xaf\"",     // overlong (3 bytes)
            "\"\xf0\x80\x80\xaf\"", // overlong (4 bytes)
            "\"\xed\xa0\x80\"",     // U+D800, a surrogate, encoded directly
            "\"\xed\xbf\xbf\"",     // U+DFFF
            "\"\xf4\x90\x80\x80\"", // U+110000, beyond Unicode
            "\"\xf5\x80\x80\x80\"", // lead byte beyond Unicode
            "\"\xe2\x82\"",         // cut short by the closing quote
            "\"\xe2\x82",           // cut short by the end of the text
        };
        for (const auto* text : malformed)
        {
            INFO (text);
            CHECK_THROWS_WITH (parseJson (text), Contains ("at byte 1") && Contains ("invalid UTF-8 in string"));
        }
        CHECK_THROWS_WITH (parseJson ("{\"\xc3\xa9\xff\": 1}"), Contains ("at byte 4") && Contains ("invalid UTF-8 in string"));
    }

    SECTION ("duplicate keys")
    {
        CHECK_THROWS_WITH (parseJson (R"({"a": 1, "a": 2})"), Contains ("at byte 9") && Contains ("duplicate key 'a'"));
        CHECK_THROWS_WITH (parseJson (R"({"a": 1, "b": 2, "\u0061": 3})"), Contains ("duplicate key 'a'")); // equal once unescaped
        CHECK_THROWS_WITH (parseJson (R"({"x": {"": 1, "": 2}})"), Contains ("duplicate key ''"));
        // Keys are quoted in the message with control characters made visible.
        CHECK_THROWS_WITH (parseJson (R"({"\u001b[31m": 1, "\u001b[31m": 2})"), Contains ("duplicate key '\\x1b[31m'"));
    }
}

TEST_CASE ("deep nesting is an error, not a stack overflow", "[json]")
{
    const auto nested = [] (int depth) { return std::string (static_cast<std::size_t> (depth), '[') + std::string (static_cast<std::size_t> (depth), ']'); };
    CHECK_NOTHROW (parseJson (nested (kMaxJsonDepth)));
    CHECK (parseError (nested (kMaxJsonDepth + 1)) == "JSON error at byte 64: nesting deeper than 64 levels");

    std::string objects;
    for (int i = 0; i < kMaxJsonDepth; ++i)
        objects += "{\"a\":";
    objects += "1" + std::string (kMaxJsonDepth, '}');
    CHECK_NOTHROW (parseJson (objects));
    CHECK_THROWS_WITH (parseJson ("[" + objects + "]"), Contains ("nesting deeper than 64"));

    CHECK_THROWS_WITH (parseJson (std::string (100000, '[')), Contains ("nesting deeper than 64"));
    CHECK_THROWS_WITH (parseJson (std::string (100000, '{')), Contains ("expected a string key"));
    std::string deepObjects;
    for (int i = 0; i < 100000; ++i)
        deepObjects += "{\"a\":";
    CHECK_THROWS_WITH (parseJson (deepObjects), Contains ("nesting deeper than 64"));
}

TEST_CASE ("typed access checks the type", "[json]")
{
    const auto value = parseJson (R"({"n": 1.5, "s": "x", "b": true, "l": [], "o": {}, "z": null})");
    CHECK_THROWS_WITH (value.at ("s").asNumber(), Contains ("expected a number, found a string"));
    CHECK_THROWS_WITH (value.at ("n").asString(), Contains ("expected a string, found a number"));
    CHECK_THROWS_WITH (value.at ("z").asBool(), Contains ("expected a boolean, found null"));
    CHECK_THROWS_WITH (value.at ("b").asArray(), Contains ("expected a list, found a boolean"));
    CHECK_THROWS_WITH (value.at ("l").asObject(), Contains ("expected an object, found a list"));
    CHECK_THROWS_WITH (value.at ("o").asInt(), Contains ("expected a number, found an object"));
    CHECK_THROWS_WITH (value.at ("nope"), Contains ("missing key 'nope'"));
    CHECK_THROWS_WITH (value.at ("l").at ("x"), Contains ("missing key 'x'"));
    CHECK_THROWS_AS (value.asArray(), JsonError);
}

TEST_CASE ("no input crashes the JSON parser", "[json][robustness]")
{
    const std::string document = R"({"graph": {"nodes": [{"op": "conv", "attrs": {"k": [3, 3], "s": -1.5e-3}}], )"
                                 R"("name": "\u00e9\ud83c\udfb5 caf)"
                                 "\xc3\xa9"
                                 R"("}, "ok": [true, false, null]})";
    REQUIRE_NOTHROW (parseJson (document));

    // Parses an exactly sized copy, so that reading past its end shows under the address sanitiser.
    const auto parseCopy = [] (const std::string& text) {
        const std::vector<char> copy (text.begin(), text.end());
        return parseJson (std::string_view (copy.data(), copy.size()));
    };

    // A strict prefix of an object is never a document.
    for (std::size_t length = 0; length < document.size(); ++length)
        CHECK_THROWS_AS (parseCopy (document.substr (0, length)), JsonError);

    // Deterministic byte mutations: anything may happen but a crash or another exception type.
    std::uint32_t random = 12345;
    const auto next = [&random] { return random = random * 1664525u + 1013904223u; };
    const char interesting[] = { '"', '\\', '{', '}', '[', ']', ',', ':', 'u', '0', '-', 'e', '.', '\0', '\x80', '\xff' };
    int numParsed = 0;
    for (int trial = 0; trial < 5000; ++trial)
    {
        std::string mutated = document;
        for (int edit = 0; edit < 3; ++edit)
        {
            const auto pos = next() % mutated.size();
            mutated[pos] = (next() % 2 == 0) ? interesting[next() % sizeof interesting] : static_cast<char> (next() >> 24);
        }
        try
        {
            parseCopy (mutated);
            ++numParsed;
        }
        catch (const JsonError&)
        {
        }
    }
    CHECK (numParsed < 5000);
}

// JSON written back (engine/file/JsonWriter.h, JsonNumber.h) byte for byte as nlohmann/json's dump()
// writes the same document: the taught model files and the plugin's saved examples were written by
// it, and must not change. nlohmann/json is the oracle here (its serialiser only: documents are
// built in both, never parsed by it).
#include "engine/file/Json.h"
#include "engine/file/JsonNumber.h"
#include "engine/file/JsonWriter.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace sonotype;
using engine::InvalidUtf8;
using engine::JsonValue;

namespace
{
std::string rewritten (const std::string& text)
{
    return engine::writeJson (engine::parseJson (text));
}

std::string doubleText (double value)
{
    char buffer[engine::kMaxJsonDoubleChars];
    return { buffer, engine::formatJsonDouble (buffer, value) };
}

std::string nlohmannText (double value)
{
    return nlohmann::json (value).dump();
}

/** A random string: mostly ASCII with escapes and controls, some valid UTF-8, some stray bytes. */
std::string randomText (std::mt19937_64& random, bool valid)
{
    static const std::vector<std::string> pieces { "a", "Z", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", std::string (1, '\0'), "\x01",
                                                   "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbd" };
    static const std::vector<std::string> broken { "\x80", "\xbf", "\xc0\x80", "\xc1", "\xc3", "\xe2\x82", "\xe0\x80\x80", "\xed\xa0\x80",
                                                   "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5", "\xff", "\xf0\x9f\x98" };
    std::string text;
    const auto length = random() % 12;
    for (std::size_t i = 0; i < length; ++i)
        text += ! valid && random() % 4 == 0 ? broken[random() % broken.size()] : pieces[random() % pieces.size()];
    return text;
}

double randomDouble (std::mt19937_64& random)
{
    switch (random() % 4)
    {
        case 0: return std::bit_cast<double> (random());                                                   // any bits (NaN and infinities are written as null)
        case 1: return static_cast<double> (std::bit_cast<float> (static_cast<std::uint32_t> (random()))); // a float32, as weights are
        case 2: return static_cast<double> (static_cast<int64_t> (random() % 2000001) - 1000000) / 1000.0; // milliseconds, as in records
        default: return std::ldexp (static_cast<double> (random() % 1000), static_cast<int> (random() % 200) - 100);
    }
}

/** The same random document in both libraries (depth-limited). */
std::pair<JsonValue, nlohmann::json> randomDocument (std::mt19937_64& random, int depth, bool validText)
{
    switch (depth > 3 ? random() % 5 : random() % 7)
    {
        case 0: return { JsonValue(), nullptr };
        case 1:
        {
            const bool b = random() % 2 == 0;
            return { JsonValue::boolean (b), b };
        }
        case 2:
        {
            const auto i = static_cast<int64_t> (random()) >> (random() % 64);
            return { JsonValue::integer (i), i };
        }
        case 3:
        {
            const auto x = randomDouble (random);
            return { JsonValue::number (x), x };
        }
        case 4:
        {
            auto text = randomText (random, validText);
            return { JsonValue::string (text), text };
        }
        case 5:
        {
            JsonValue::Array items;
            auto list = nlohmann::json::array();
            for (auto n = random() % 4; n > 0; --n)
            {
                auto [ours, theirs] = randomDocument (random, depth + 1, validText);
                items.push_back (std::move (ours));
                list.push_back (std::move (theirs));
            }
            return { JsonValue::array (std::move (items)), std::move (list) };
        }
        default:
        {
            JsonValue object = JsonValue::object ({});
            auto members = nlohmann::json::object();
            for (auto n = random() % 5; n > 0; --n)
            {
                const auto key = randomText (random, validText);
                auto [ours, theirs] = randomDocument (random, depth + 1, validText);
                object.set (key, std::move (ours));
                members[key] = std::move (theirs);
            }
            return { std::move (object), std::move (members) };
        }
    }
}
} // namespace

TEST_CASE ("JSON is written compact, with an object's keys sorted by their bytes", "[json]")
{
    CHECK (rewritten (R"( { "b" : 1 , "a" : [ true , false , null , [ ] , { } ] , "B" : { "z" : "x" , "_" : 2 } , "é" : "" , "" : 0 } )")
           == R"({"":0,"B":{"_":2,"z":"x"},"a":[true,false,null,[],{}],"b":1,"é":""})");
    // Set replaces a member where it is, erase removes it; both are written in key order.
    auto object = engine::parseJson (R"({"c":1,"a":2})");
    object.set ("b", JsonValue::string ("new"));
    object.set ("c", JsonValue::integer (3));
    CHECK (object.erase ("a"));
    CHECK_FALSE (object.erase ("a"));
    CHECK (engine::writeJson (object) == R"({"b":"new","c":3})");
    CHECK (object.asObject().size() == 2);
    // A key twice (JsonValue::object does not check) is refused, not written.
    CHECK_THROWS_AS (engine::writeJson (JsonValue::object ({ { "k", JsonValue() }, { "k", JsonValue() } })), engine::JsonError);
}

TEST_CASE ("JSON numbers are written back as nlohmann/json writes them", "[json]")
{
    // Integer digits stay integers (zero included, and "-0" is 0), whatever the range they fit.
    for (const auto& [text, written] : std::vector<std::pair<std::string, std::string>> {
             { "0", "0" },
             { "-0", "0" },
             { "7", "7" },
             { "-1", "-1" },
             { "9007199254740993", "9007199254740993" }, // beyond 2^53: not rounded to a double
             { "9223372036854775807", "9223372036854775807" },
             { "-9223372036854775808", "-9223372036854775808" },
             { "18446744073709551615", "18446744073709551615" },   // uint64, as nlohmann keeps it
             { "18446744073709551616", "1.8446744073709552e+19" }, // beyond: a double
             { "-9223372036854775809", "-9.223372036854776e+18" }, // below int64: a double
             { "0.5", "0.5" },
             { "1e-05", "1e-05" },
             { "1e-5", "1e-05" },
             { "0.00001", "1e-05" },
             { "0.0001", "0.0001" },
             { "-0.0", "-0.0" },
             { "0.0", "0.0" },
             { "0e7", "0.0" },
             { "1.0", "1.0" },
             { "1E2", "100.0" },
             { "2.5e1", "25.0" },
             { "123.456", "123.456" },
             { "0.1", "0.1" },
             { "0.12", "0.12" },
             { "1e14", "100000000000000.0" },
             { "1e15", "1e+15" },
             { "1.5e300", "1.5e+300" },
             { "-2.5e-100", "-2.5e-100" },
             { "5e-324", "5e-324" },
             { "1e-400", "0.0" }, // rounds to zero, as strtod does
             { "-1e-400", "-0.0" },
             { "1.7976931348623157e308", "1.7976931348623157e+308" },
             { "0.10000000149011612", "0.10000000149011612" }, // a float32's 0.1 as a double
         })
    {
        INFO (text);
        CHECK (rewritten (text) == written);
        CHECK (rewritten ("[" + text + "]") == "[" + written + "]");
    }
    CHECK (engine::writeJson (JsonValue::number (2.0)) == "2.0");
    CHECK (engine::writeJson (JsonValue::number (-0.0)) == "-0.0");
    CHECK (engine::writeJson (JsonValue::integer (std::numeric_limits<int64_t>::min())) == "-9223372036854775808");
    CHECK (engine::writeJson (JsonValue::number (std::numeric_limits<double>::quiet_NaN())) == "null");
    CHECK (engine::writeJson (JsonValue::number (-std::numeric_limits<double>::infinity())) == "null");
    // What nlohmann writes, for the same doubles: a million of them of every kind.
    std::mt19937_64 random (20240611);
    int compared = 0;
    for (int i = 0; i < 1000000; ++i)
    {
        const double x = randomDouble (random);
        if (! std::isfinite (x))
            continue;
        const auto ours = doubleText (x);
        if (ours != nlohmannText (x))
            FAIL_CHECK (ours << " != " << nlohmannText (x) << " for bits " << std::bit_cast<std::uint64_t> (x));
        ++compared;
    }
    CHECK (compared > 990000);
}

TEST_CASE ("JSON strings are written as UTF-8 with only quotes, backslashes and controls escaped", "[json]")
{
    const char raw[] = "\"\\/\b\f\n\r\t\x01\x1f\x7f\0 \xc3\xa9 \xf0\x9f\x98\x80";
    const std::string text (raw, sizeof raw - 1);
    CHECK (engine::writeJson (JsonValue::string (text)) == std::string ("\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\\u0000 \xc3\xa9 \xf0\x9f\x98\x80\""));
    // Read back, the same string.
    CHECK (engine::parseJson (engine::writeJson (JsonValue::string (text))).asString() == text);
    // Text that is not UTF-8: refused, or each bad run one U+FFFD (the rest of a cut sequence
    // starts afresh, a surrogate's bytes are three runs).
    CHECK_THROWS_WITH (engine::writeJson (JsonValue::string ("a\xff")), Catch::Contains ("not valid UTF-8") && Catch::Contains ("byte 1: 0xff"));
    const auto replaced = [] (const std::string& bad) { return engine::writeJson (JsonValue::string (bad), InvalidUtf8::replace); };
    CHECK (replaced ("a\xff"
                     "b")
           == "\"a\xef\xbf\xbd"
              "b\"");
    CHECK (replaced ("\xe2\x82"
                     "a")
           == "\"\xef\xbf\xbd"
              "a\"");
    CHECK (replaced ("a\xe2\x82") == "\"a\xef\xbf\xbd\"");
    CHECK (replaced ("\xed\xa0\x80") == "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    CHECK (replaced ("\xf0\x9f\x98\xf0\x9f\x98\x80") == "\"\xef\xbf\xbd\xf0\x9f\x98\x80\"");
    // Keys too.
    CHECK_THROWS_AS (engine::writeJson (JsonValue::object ({ { "\xc3", JsonValue() } })), engine::JsonError);
    // appendJson leaves its output as it was when it throws.
    std::string out = "kept";
    CHECK_THROWS_AS (engine::appendJson (out, JsonValue::array ({ JsonValue::integer (1), JsonValue::string ("\xff") })), engine::JsonError);
    CHECK (out == "kept");
}

TEST_CASE ("random documents are written as nlohmann/json dumps them, with either handling of bad UTF-8", "[json]")
{
    std::mt19937_64 random (7);
    for (int i = 0; i < 20000; ++i)
    {
        const bool validText = i % 2 == 0;
        const auto [ours, theirs] = randomDocument (random, 0, validText);
        INFO ("document " << i);
        CHECK (engine::writeJson (ours, InvalidUtf8::replace) == theirs.dump (-1, ' ', false, nlohmann::json::error_handler_t::replace));
        bool theyRefuse = false;
        std::string strict;
        try
        {
            strict = theirs.dump();
        }
        catch (const nlohmann::json::type_error&)
        {
            theyRefuse = true;
        }
        if (theyRefuse)
            CHECK_THROWS_AS (engine::writeJson (ours), engine::JsonError);
        else
            CHECK (engine::writeJson (ours) == strict);
    }
}

TEST_CASE ("JSON nested deeper than the writer's limit is refused, not a stack overflow", "[json]")
{
    JsonValue value = JsonValue::integer (1);
    for (int depth = 0; depth < engine::kMaxJsonWriteDepth; ++depth)
        value = JsonValue::array ({ std::move (value) });
    CHECK (engine::writeJson (value).size() == 2 * engine::kMaxJsonWriteDepth + 1);
    value = JsonValue::array ({ std::move (value) });
    CHECK_THROWS_WITH (engine::writeJson (value), Catch::Contains ("nested deeper"));
}

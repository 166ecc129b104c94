#include "engine/Json.h"

#include <catch2/catch.hpp>

using namespace sonotype::engine;
using Catch::Matchers::Contains;

TEST_CASE ("JSON documents parse into values", "[json]")
{
    const auto value = parseJson (R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "d\u00e9\ud83c\udfb5\n"}, "e": -0} )");
    REQUIRE (value.isObject());
    const auto& a = value.at ("a").asArray();
    REQUIRE (a.size() == 5);
    CHECK (a[0].asInt() == 1);
    CHECK (a[1].asNumber() == -2500.0);
    CHECK (a[2].asBool());
    CHECK_FALSE (a[3].asBool());
    CHECK (a[4].isNull());
    CHECK (value.at ("b").at ("c").asString() == "d\xc3\xa9\xf0\x9f\x8e\xb5\n");
    CHECK (value.at ("e").asNumber() == 0.0);
    CHECK (value.find ("missing") == nullptr);
    CHECK (value.asObject()[1].first == "b"); // file order kept
    CHECK (parseJson ("1e-300").asNumber() == Approx (1e-300));
    CHECK (parseJson ("1e-400").asNumber() == 0.0); // underflow rounds to zero
    CHECK (parseJson ("9007199254740992").asInt() == 9007199254740992LL);
    CHECK (toJson (parseJson (R"({"x":[1,"a\"b",null,true]})")) == R"({"x":[1,"a\"b",null,true]})");
}

TEST_CASE ("malformed JSON is rejected with its byte offset", "[json]")
{
    CHECK_THROWS_WITH (parseJson (""), Contains ("at byte 0") && Contains ("unexpected end"));
    CHECK_THROWS_WITH (parseJson ("{\"a\": 1,}"), Contains ("expected a string key"));
    CHECK_THROWS_WITH (parseJson ("[1, 2"), Contains ("expected ']'"));
    CHECK_THROWS_WITH (parseJson ("{\"a\" 1}"), Contains ("expected ':'"));
    CHECK_THROWS_WITH (parseJson ("1 2"), Contains ("after the JSON value"));
    CHECK_THROWS_WITH (parseJson ("01"), Contains ("after the JSON value"));
    CHECK_THROWS_WITH (parseJson ("NaN"), Contains ("unexpected character"));
    CHECK_THROWS_WITH (parseJson ("1e999"), Contains ("out of range"));
    CHECK_THROWS_WITH (parseJson ("1."), Contains ("invalid number"));
    CHECK_THROWS_WITH (parseJson ("-"), Contains ("invalid number"));
    CHECK_THROWS_WITH (parseJson ("\"a\tb\""), Contains ("control character"));
    CHECK_THROWS_WITH (parseJson ("\"\\x\""), Contains ("invalid escape"));
    CHECK_THROWS_WITH (parseJson ("\"\\ud800\""), Contains ("unpaired surrogate"));
    CHECK_THROWS_WITH (parseJson ("\"\\udc00\""), Contains ("unpaired surrogate"));
    CHECK_THROWS_WITH (parseJson ("\"\xff\""), Contains ("invalid UTF-8"));
    CHECK_THROWS_WITH (parseJson ("\"\xc0\xaf\""), Contains ("invalid UTF-8")); // overlong
    CHECK_THROWS_WITH (parseJson ("\"\xe2\x82\""), Contains ("UTF-8"));
    CHECK_THROWS_WITH (parseJson ("\"abc"), Contains ("unterminated string"));
    CHECK_THROWS_WITH (parseJson ("{\"a\":1,\"a\":2}"), Contains ("duplicate key 'a'"));
    CHECK_THROWS_WITH (parseJson ("tru"), Contains ("invalid literal"));
}

TEST_CASE ("deep nesting is an error, not a stack overflow", "[json]")
{
    CHECK_NOTHROW (parseJson (std::string (60, '[') + std::string (60, ']')));
    CHECK_THROWS_WITH (parseJson (std::string (100000, '[')), Contains ("nesting deeper than 64"));
}

TEST_CASE ("typed access checks the type", "[json]")
{
    const auto value = parseJson (R"({"n": 1.5, "s": "x", "big": 1e19})");
    CHECK_THROWS_WITH (value.at ("n").asInt(), Contains ("expected an integer"));
    CHECK_THROWS_WITH (value.at ("big").asInt(), Contains ("expected an integer"));
    CHECK_THROWS_WITH (value.at ("s").asNumber(), Contains ("expected a number, found a string"));
    CHECK_THROWS_WITH (value.at ("nope"), Contains ("missing key 'nope'"));
    CHECK_THROWS_AS (value.asArray(), JsonError);
}

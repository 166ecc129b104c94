// Text from model files that people see: labels (CSV rows, terminals, the GUI) and names quoted in
// error messages. Labels are short, distinct and visible; nothing reaches a message raw that a
// terminal obeys (U+009B is a one-byte CSI) or that reorders or hides text (U+202E, U+200D).
#include "engine/file/ModelError.h"
#include "support/GraphBuilder.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;

namespace
{
std::string refusalWithLabels (const std::vector<std::string>& labels)
{
    GraphBuilder g;
    const int x = g.input ({ 1, static_cast<int64_t> (labels.size()) });
    const int y = g.node ("relu", { x }, { { 1, static_cast<int64_t> (labels.size()) } });
    std::string json = "[";
    for (std::size_t i = 0; i < labels.size(); ++i)
        json += (i ? "," : "") + jsonString (labels[i]);
    try
    {
        g.load ({ y }, {}, { { "labels", json + "]" } });
    }
    catch (const engine::ModelError& e)
    {
        return e.what();
    }
    return "";
}

bool hasRawUnsafeText (const std::string& text)
{
    for (const char* raw : { "\x1b", "\xc2\x9b", "\xe2\x80\xae", "\xe2\x80\x8d", "\x07" })
        if (text.find (raw) != std::string::npos)
            return true;
    return false;
}
} // namespace

TEST_CASE ("printable() escapes C0, C1, bidirectional and invisible characters and malformed bytes", "[engine][text]")
{
    CHECK (engine::printable ("plain text, ü, ピアノ, 🥁") == "plain text, ü, ピアノ, 🥁");
    CHECK (engine::printable ("a\x1b[2Jb") == "a\\x1b[2Jb");
    CHECK (engine::printable ("csi \xc2\x9b"
                              "31m")
           == "csi \\u009b31m");
    CHECK (engine::printable ("abc\xe2\x80\xae"
                              "txt.exe")
           == "abc\\u202etxt.exe");
    CHECK (engine::printable ("kick\xe2\x80\x8b") == "kick\\u200b");
    CHECK (engine::printable ("tag\xf3\xa0\x80\x81") == "tag\\U000e0001");
    CHECK (engine::printable ("bad \xff byte") == "bad \\xff byte");
    CHECK (engine::printable ("cut \xe2\x80") == "cut \\xe2\\x80");
}

TEST_CASE ("quote() cuts long text and says how long it was", "[engine][text]")
{
    CHECK (engine::quote ("short") == "'short'");
    const std::string long_ (1 << 20, 'x');
    const auto q = engine::quote (long_);
    CHECK (q.size() < 100);
    CHECK_THAT (q, Contains ("…' (1048576 bytes)"));
}

TEST_CASE ("labels: at most 256 bytes each, visible text only, distinct, 256 KiB in all", "[engine][text]")
{
    CHECK (refusalWithLabels ({ "kick", "Streicher", "ピアノ", "🥁 drums", std::string (256, 'a') }).empty());

    CHECK_THAT (refusalWithLabels ({ "low", std::string (1 << 20, 'm'), "high" }), Contains ("label 1 'mmmm") && Contains ("is longer than 256 bytes"));
    CHECK_THAT (refusalWithLabels ({ "low", std::string (257, 'm') }), Contains ("is longer than 256 bytes"));
    CHECK_THAT (refusalWithLabels ({ "low", "mid\xc2\x9b"
                                            "31m" }),
                Contains ("label 1 'mid\\u009b31m' holds U+009B, a C1 control character"));
    CHECK_THAT (refusalWithLabels ({ "low", "\xe2\x80\xae"
                                            "dim" }),
                Contains ("label 1 '\\u202edim' holds U+202E, a bidirectional-text control"));
    CHECK_THAT (refusalWithLabels ({ "kick", "kick\xe2\x80\x8d" }), Contains ("holds U+200D, an invisible format character"));
    CHECK_THAT (refusalWithLabels ({ "low", "mid\x1b[31m" }), Contains ("holds U+001B, a control character"));
    CHECK_THAT (refusalWithLabels ({ "low", "" }), Contains ("label 1 is empty"));
    // An emoji's presentation selector and joiners are part of it; elsewhere they only hide.
    CHECK (refusalWithLabels ({ "\xe2\x9d\xa4\xef\xb8\x8f love", "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x8e\xa4 singer", "1\xef\xb8\x8f\xe2\x83\xa3" }).empty());
    CHECK_THAT (refusalWithLabels ({ "dog", "dog\xef\xb8\x8f" }), Contains ("holds U+FE0F, an invisible variation selector"));
    CHECK_THAT (refusalWithLabels ({ "12", "1\xe2\x80\x8d"
                                           "2" }),
                Contains ("holds U+200D, an invisible format character"));
    CHECK_THAT (refusalWithLabels ({ "snare", "kick", "snare" }), Contains ("label 2 'snare' repeats an earlier label"));

    std::vector<std::string> many;
    for (int i = 0; i < 1100; ++i)
        many.push_back (std::to_string (i) + std::string (250, 'x'));
    CHECK_THAT (refusalWithLabels (many), Contains ("the labels take more than 256 KiB (label 1036 is the first past it)"));

    for (const auto* labels : { "[\"a\",\"b\\u009b\"]", "[\"a\",\"\\u202e\"]" })
    {
        GraphBuilder g;
        const int y = g.node ("relu", { g.input ({ 1, 2 }) }, { { 1, 2 } });
        try
        {
            g.load ({ y }, {}, { { "labels", labels } });
            FAIL ("loaded");
        }
        catch (const engine::ModelError& e)
        {
            CHECK_FALSE (hasRawUnsafeText (e.what()));
        }
    }
}

TEST_CASE ("tensor names: visible text of at most 1 KiB, quoted escaped and cut in messages", "[engine][text]")
{
    for (const auto& [name, message] : std::vector<std::pair<std::string, std::string>> {
             { "w\xc2\x9b", "tensor name 'w\\u009b' holds U+009B, a C1 control character" },
             { std::string (2000, 'w'), "tensor name 'wwww" },
             { "w\xe2\x80\xae", "holds U+202E, a bidirectional-text control" } })
    {
        GraphBuilder g;
        const int x = g.input ({ 1, 2 });
        const int w = g.tensor (name, { 2 }, { 1.0f, 2.0f });
        const int y = g.node ("add", { x, w }, { { 1, 2 } });
        try
        {
            g.load ({ y });
            FAIL ("loaded");
        }
        catch (const engine::ModelError& e)
        {
            CHECK_THAT (std::string (e.what()), Contains (message));
            CHECK (std::string (e.what()).size() < 400);
            CHECK_FALSE (hasRawUnsafeText (e.what()));
        }
    }
}

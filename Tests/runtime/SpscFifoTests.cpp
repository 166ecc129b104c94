#include "runtime/SpscFifo.h"

#include <catch2/catch.hpp>

#include <thread>

using sonotype::runtime::SpscFifo;

TEST_CASE ("the FIFO keeps order across wrap-around and drops what does not fit", "[runtime][fifo]")
{
    SpscFifo fifo (8);
    REQUIRE (fifo.capacity() == 8);
    float in[16], out[16];
    for (int i = 0; i < 16; ++i)
        in[i] = static_cast<float> (i);
    float next = 0.0f;
    for (int round = 0; round < 20; ++round) // wraps many times
    {
        const auto written = fifo.write (in + static_cast<int> (next) % 8, 5);
        REQUIRE (written == 5);
        REQUIRE (fifo.available() == 5);
        REQUIRE (fifo.read (out, 16) == 5);
        for (int i = 0; i < 5; ++i)
            REQUIRE (out[i] == in[(static_cast<int> (next) % 8) + i]);
        next += 5.0f;
    }
    REQUIRE (fifo.write (in, 16) == 8); // full: the rest is dropped
    REQUIRE (fifo.write (in, 1) == 0);
    REQUIRE (fifo.read (out, 3) == 3);
    REQUIRE (out[2] == 2.0f);
    REQUIRE (fifo.write (in, 16) == 3);
}

TEST_CASE ("the FIFO moves a stream intact between two threads", "[runtime][fifo]")
{
    SpscFifo fifo (1024);
    constexpr int kTotal = 2000000;
    std::thread producer ([&] {
        float block[37];
        int value = 0;
        while (value < kTotal)
        {
            const int count = std::min (37, kTotal - value);
            for (int i = 0; i < count; ++i)
                block[i] = static_cast<float> ((value + i) % 65536);
            const auto written = static_cast<int> (fifo.write (block, static_cast<std::size_t> (count)));
            value += written;
            if (written < count)
                std::this_thread::yield();
        }
    });
    int received = 0;
    bool inOrder = true;
    float block[101];
    while (received < kTotal)
    {
        const auto count = static_cast<int> (fifo.read (block, 101));
        for (int i = 0; i < count; ++i)
            inOrder = inOrder && block[i] == static_cast<float> ((received + i) % 65536);
        received += count;
    }
    producer.join();
    CHECK (inOrder);
    CHECK (received == kTotal);
}

// The ONNX Runtime contender of the latency benchmark (onnxruntime-node, pinned in
// Training/sonotype/testing/ort/package-lock.json, shared with the ONNX conversion tests, installed
// there with `npm ci --ignore-scripts`): one persistent process per model, speaking the protocol
// of Benchmarks/engine/ModelWorker.cpp ("ready"; "run N" -> "times T1 .. TN" in ms; "quit").
//   node ort_worker.js MODEL.onnx INPUT.f32 OUTPUT.f32 SHAPE_JSON
// One thread (intraOpNumThreads = interOpNumThreads = 1, sequential), all graph optimisations.
'use strict';
const fs = require('fs');
const readline = require('readline');
const path = require('path');
const { createRequire } = require('module');
const ort = createRequire(path.join(__dirname, '..', '..', 'Training', 'sonotype', 'testing', 'ort', 'package.json'))('onnxruntime-node');

async function main() {
    const [modelPath, inputPath, outputPath, shapeJson] = process.argv.slice(2);
    const shape = JSON.parse(shapeJson);
    const session = await ort.InferenceSession.create(modelPath, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
    });
    const bytes = fs.readFileSync(inputPath);
    const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    const expected = shape.reduce((a, b) => a * b, 1);
    if (data.length !== expected)
        throw new Error(`${inputPath} holds ${data.length} floats; the model takes ${expected}`);
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, shape) };
    let outputs;
    for (let i = 0; i < 3; ++i)
        outputs = await session.run(feeds);
    const output = outputs[session.outputNames[0]].data;
    fs.writeFileSync(outputPath, Buffer.from(output.buffer, output.byteOffset, output.byteLength));
    process.stdout.write('ready\n');

    const lines = readline.createInterface({ input: process.stdin, terminal: false });
    for await (const line of lines) {
        const words = line.trim().split(/\s+/);
        if (words[0] === 'quit')
            break;
        const count = Number(words[1]);
        if (words.length !== 2 || words[0] !== 'run' || !Number.isInteger(count) || count < 1)
            throw new Error(`unknown command '${line}'`);
        const times = [];
        for (let i = 0; i < count; ++i) {
            const start = process.hrtime.bigint();
            await session.run(feeds);
            times.push(Number(process.hrtime.bigint() - start) / 1e6);
        }
        process.stdout.write('times ' + times.map((t) => t.toPrecision(6)).join(' ') + '\n');
    }
    process.exit(0);
}

main().catch((error) => {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
});

// Runs ONNX models in ONNX Runtime (npm onnxruntime-node, pinned in package-lock.json next to this
// file, installed with `npm ci --ignore-scripts`): the reference the ONNX conversion tests compare with.
//   node run_onnx.js JOBS.json
// JOBS.json: [{"model": "a.onnx", "inputs": {"name": "x.npy", ...}, "output_dir": "out/"}, ...]
// Each job writes its outputs as OUTPUT_DIR/<index>.npy in the model's output order and
// OUTPUT_DIR/names.json with their names. .npy files: little-endian float32, float64, int64, int32,
// uint8 or bool, C order.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const TYPES = {
    '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
    '<i4': ['int32', Int32Array], '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
    const bytes = fs.readFileSync(file);
    if (bytes.length < 10 || bytes.toString('latin1', 0, 6) !== '\x93NUMPY')
        throw new Error(`${file} is not a .npy file`);
    const major = bytes[6];
    const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
    const start = major === 1 ? 10 : 12;
    const header = bytes.toString('latin1', start, start + headerLength);
    const descr = /'descr':\s*'([^']+)'/.exec(header);
    const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
    if (!descr || !shape || /'fortran_order':\s*True/.test(header))
        throw new Error(`${file}: unsupported .npy header ${header}`);
    const type = TYPES[descr[1]];
    if (!type)
        throw new Error(`${file}: unsupported data type ${descr[1]}`);
    const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
    const data = bytes.subarray(start + headerLength);
    const copy = new Uint8Array(data.length);
    copy.set(data);
    return new ort.Tensor(type[0], new type[1](copy.buffer), dims);
}

function writeNpy(file, tensor) {
    const descr = { float32: '<f4', float64: '<f8', int64: '<i8', int32: '<i4', uint8: '|u1', bool: '|b1' }[tensor.type];
    if (!descr)
        throw new Error(`output of type ${tensor.type} is not supported`);
    const dims = tensor.dims.map(Number);
    const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
    let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
    header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
    const prefix = Buffer.alloc(10);
    prefix.write('\x93NUMPY', 0, 'latin1');
    prefix[6] = 1;
    prefix[7] = 0;
    prefix.writeUInt16LE(header.length, 8);
    const data = tensor.type === 'bool' ? Uint8Array.from(tensor.data, (v) => (v ? 1 : 0)) : tensor.data;
    fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'),
        Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

async function main() {
    const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
    for (const job of jobs)
        await runJob(job).catch((error) => { throw new Error(`${job.model}: ${error.message}`); });
}

async function runJob(job) {
    const session = await ort.InferenceSession.create(job.model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    const feeds = {};
    for (const [name, file] of Object.entries(job.inputs))
        feeds[name] = readNpy(file);
    const outputs = await session.run(feeds);
    fs.mkdirSync(job.output_dir, { recursive: true });
    session.outputNames.forEach((name, index) => writeNpy(path.join(job.output_dir, `${index}.npy`), outputs[name]));
    fs.writeFileSync(path.join(job.output_dir, 'names.json'), JSON.stringify(session.outputNames));
}

main().catch((error) => {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
});

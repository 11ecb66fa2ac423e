// sampan example: classify a drawn digit with the quickstart's LeNet (lenet_digits.onnx)
// in the browser, through onnxruntime-web (single-threaded WebAssembly: no cross-origin
// isolation headers needed). Plain script, no build step; `ort` comes from ort.wasm.min.js.
//
// Preprocessing follows examples/quickstart.py. Its data are scikit-learn's 8x8 digits
// (32x32 binary scans, each 4x4 block counted 0..16, scaled to 0..255), and its transform is
// Resize(20) (bilinear, half-pixel centres), Pad(4), ToTensor (/255), Normalize(0.5, 0.5).
// The drawing is turned into such an 8x8 digit first, then transformed the same way.
//
// window.sampanPredict(values): values = one preprocessed 1x28x28 sample as a flat array of
// 784 numbers; runs it as float32 with batch 1, shows and resolves to the 10 probabilities.
// window.sampanPreprocess(pixels): 64 numbers (an 8x8 digit, 0..255) -> the 784 model inputs.
"use strict";

(function () {
  const MODEL_URL = "lenet_digits.onnx";
  const SIDE = 28;
  const status = document.getElementById("status");

  function setStatus(text, isError) {
    status.textContent = text;
    status.className = isError ? "error" : "";
  }

  ort.env.wasm.numThreads = 1;                          // no SharedArrayBuffer needed
  // an absolute URL: the runtime import()s its .mjs from here (a bare path would not resolve)
  ort.env.wasm.wasmPaths = new URL("node_modules/onnxruntime-web/dist/", document.baseURI).href;
  const session = ort.InferenceSession.create(MODEL_URL, { executionProviders: ["wasm"] });
  session.then(
    () => { setStatus("ready: draw a digit (white on black), release the mouse or press Predict"); },
    (err) => { setStatus("could not load " + MODEL_URL + ": " + err.message, true); });

  // numpy's round (half to even), so integer pixels match the quickstart's exactly
  function roundHalfEven(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
  }

  // (nOut x nIn) bilinear weights with half-pixel centres, as sampan's T.Resize
  function bilinearWeights(nIn, nOut) {
    const scale = nIn / nOut;
    const w = [];
    for (let o = 0; o < nOut; o++) {
      const row = new Array(nIn).fill(0);
      const src = Math.min(Math.max((o + 0.5) * scale - 0.5, 0), nIn - 1);
      const lo = Math.floor(src);
      const hi = Math.min(lo + 1, nIn - 1);
      row[lo] += 1 - (src - lo);
      row[hi] += src - lo;
      w.push(row);
    }
    return w;
  }

  function sampanPreprocess(pixels) {
    if (!pixels || pixels.length !== 64) {
      throw new Error("sampanPreprocess: pixels must be 64 numbers (8x8), got length " +
                      (pixels ? pixels.length : pixels));
    }
    const w = bilinearWeights(8, 20);
    const rows = w.map((wr) => {                        // resize along rows first
      const out = new Array(8).fill(0);
      for (let i = 0; i < 8; i++) {
        for (let j = 0; j < 8; j++) out[j] += wr[i] * pixels[i * 8 + j];
      }
      return out;
    });
    const values = new Float32Array(SIDE * SIDE).fill(-1);  // padding: 0 -> -1
    for (let y = 0; y < 20; y++) {
      for (let x = 0; x < 20; x++) {
        let v = 0;
        for (let j = 0; j < 8; j++) v += w[x][j] * rows[y][j];
        const u8 = Math.min(Math.max(roundHalfEven(v), 0), 255);
        values[(y + 4) * SIDE + x + 4] = (u8 / 255 - 0.5) / 0.5;
      }
    }
    return Array.from(values);
  }

  function checkValues(values) {
    if (!values || typeof values.length !== "number" || values.length !== SIDE * SIDE) {
      throw new Error("sampanPredict: values must be a flat array of 784 numbers (1x28x28), " +
                      "got length " + (values ? values.length : values));
    }
    for (let i = 0; i < values.length; i++) {
      if (typeof values[i] !== "number" || !Number.isFinite(values[i])) {
        throw new Error("sampanPredict: values[" + i + "] is not a finite number: " + values[i]);
      }
    }
  }

  function showInput(values) {
    const ctx = document.getElementById("preview").getContext("2d");
    const img = ctx.createImageData(SIDE, SIDE);
    for (let i = 0; i < SIDE * SIDE; i++) {
      const g = Math.round(Math.min(Math.max((values[i] + 1) / 2, 0), 1) * 255);
      img.data.set([g, g, g, 255], i * 4);
    }
    ctx.putImageData(img, 0, 0);
  }

  function showProbs(probs) {
    let best = 0;
    probs.forEach((p, k) => { if (p > probs[best]) best = k; });
    document.getElementById("prediction").textContent = String(best);
    const table = document.getElementById("probs");
    table.replaceChildren(...probs.map((p, k) => {
      const tr = document.createElement("tr");
      tr.className = k === best ? "best" : "";
      tr.innerHTML = "<td>" + k + "</td><td>" + p.toFixed(4) + "</td>" +
        '<td style="width:160px"><div class="bar" style="width:' + (p * 100).toFixed(1) +
        '%"></div></td>';
      return tr;
    }));
  }

  async function sampanPredict(values) {
    checkValues(values);
    const sess = await session;
    const input = new ort.Tensor("float32", Float32Array.from(values), [1, 1, SIDE, SIDE]);
    const result = await sess.run({ [sess.inputNames[0]]: input });
    const probs = Array.from(result[sess.outputNames[0]].data);
    showInput(values);
    showProbs(probs);
    return probs;
  }

  // ---- drawing pad ----
  const pad = document.getElementById("pad");
  const pctx = pad.getContext("2d");
  pctx.lineWidth = 22;
  pctx.lineCap = "round";
  pctx.lineJoin = "round";
  pctx.strokeStyle = "#fff";
  let drawing = false;

  function clearPad() {
    pctx.fillStyle = "#000";
    pctx.fillRect(0, 0, pad.width, pad.height);
    document.getElementById("prediction").textContent = "";
    document.getElementById("probs").replaceChildren();
    showInput(new Array(SIDE * SIDE).fill(-1));
  }

  function point(ev) {
    const r = pad.getBoundingClientRect();
    return [(ev.clientX - r.left) * pad.width / r.width,
            (ev.clientY - r.top) * pad.height / r.height];
  }

  // The drawing as an 8x8 digit like scikit-learn's: the ink's bounding square (full height,
  // centred) as a 32x32 binary bitmap, then the number of set pixels in each 4x4 block, 0..16
  // scaled to 0..255. null when nothing is drawn.
  function drawingToDigit() {
    const { width, height } = pad;
    const data = pctx.getImageData(0, 0, width, height).data;
    let x0 = width, y0 = height, x1 = -1, y1 = -1;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (data[(y * width + x) * 4] > 127) {
          x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
        }
      }
    }
    if (x1 < 0) return null;
    const side = Math.max(x1 - x0, y1 - y0) + 1;
    const left = (x0 + x1 + 1) / 2 - side / 2, top = (y0 + y1 + 1) / 2 - side / 2;
    const ink = new Float64Array(32 * 32), count = new Float64Array(32 * 32);
    for (let y = Math.max(0, Math.floor(top)); y < Math.min(height, top + side); y++) {
      for (let x = Math.max(0, Math.floor(left)); x < Math.min(width, left + side); x++) {
        const cy = Math.floor((y - top) / side * 32), cx = Math.floor((x - left) / side * 32);
        if (cy < 0 || cy > 31 || cx < 0 || cx > 31) continue;
        ink[cy * 32 + cx] += data[(y * width + x) * 4] / 255;
        count[cy * 32 + cx] += 1;
      }
    }
    const pixels = new Array(64).fill(0);
    for (let c = 0; c < 32 * 32; c++) {
      if (count[c] > 0 && ink[c] / count[c] > 0.5) {
        pixels[Math.floor(c / 128) * 8 + Math.floor((c % 32) / 4)] += 1;
      }
    }
    return pixels.map((v) => roundHalfEven(v * 255 / 16));
  }

  async function predictDrawing() {
    const digit = drawingToDigit();
    if (!digit) { setStatus("draw a digit first"); return; }
    try {
      await sampanPredict(sampanPreprocess(digit));
    } catch (err) {
      setStatus("prediction failed: " + err.message, true);
    }
  }

  pad.addEventListener("pointerdown", (ev) => {
    drawing = true;
    pad.setPointerCapture(ev.pointerId);
    const [x, y] = point(ev);
    pctx.beginPath();
    pctx.moveTo(x, y);
    pctx.lineTo(x, y);
    pctx.stroke();
  });
  pad.addEventListener("pointermove", (ev) => {
    if (!drawing) return;
    const [x, y] = point(ev);
    pctx.lineTo(x, y);
    pctx.stroke();
  });
  pad.addEventListener("pointerup", () => {
    if (!drawing) return;
    drawing = false;
    predictDrawing();
  });
  document.getElementById("predict").addEventListener("click", predictDrawing);
  document.getElementById("clear").addEventListener("click", clearPad);
  clearPad();

  window.sampanPreprocess = sampanPreprocess;
  window.sampanPredict = sampanPredict;
})();

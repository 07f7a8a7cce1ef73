// Package discovery is sluice's search index over what an agent can use:
// A2E operations, API entries (one per OpenAPI operation), A2S capabilities,
// HTTP task agents, session tools and knowledge documents. It answers "what
// may I call to do X" with a few entries instead of the whole catalog, which
// is what keeps an agent's prompt small (the A2E spec's "RAG-based
// discovery").
//
// Ranking is BM25F over five text fields (name, summary, description,
// parameters, tags) plus the URL path, with an English analyzer of our own
// (identifier splitting, stop words, the Snowball English stemmer). An optional hybrid
// mode fuses the BM25 ranking with cosine similarity over embeddings from a
// configured OpenAI-compatible endpoint (reciprocal rank fusion).
//
// The caller's permissions are a Filter applied to every candidate before it
// can enter the top k: an entry the filter refuses is never returned and
// never takes a place in the result. Document frequencies are computed over
// the whole index, so scores do not reveal which entries were filtered out
// beyond what the returned set already shows.
//
// The index is copy-on-write: a search reads an immutable snapshot through
// one atomic load and is never blocked by a writer; writers rebuild only the
// segment (kind, source) they change and publish a new snapshot.
package discovery

package cli_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const petsAPI = `openapi: 3.0.1
info: {title: Pets, version: 1.0.0}
servers: [{url: "https://pets.example.com"}]
paths:
  /pets:
    get: {operationId: listPets, summary: List the pets in the shop, responses: {"200": {description: ok}}}
  /pets/{id}/vaccinations:
    get:
      operationId: listVaccinations
      summary: A pet's vaccination record
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
`

// sluice api import, then sluice search as an account granted the API.
func TestAPIImportAndSearch(t *testing.T) {
	adminServer(t)
	code, out, errOut := sluice(t, "", "api", "import", writeFile(t, "pets.yaml", petsAPI), "--name", "pets")
	if code != 0 || !strings.Contains(out, `"entries": 2`) {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	if strings.Contains(errOut, "import") {
		t.Fatalf("piped, the import printed progress: %q", errOut)
	}
	// On a terminal it says what it sends, and what the server made of it.
	code, _, errOut = sluiceTTY(t, "api", "import", writeFile(t, "pets.yaml", petsAPI), "--name", "pets")
	if code != 0 || !strings.Contains(errOut, "pets.yaml (") || !strings.HasSuffix(errOut, "imported pets: 2 entries\n") {
		t.Fatalf("import on a terminal: %d %q", code, errOut)
	}
	code, _, _ = sluice(t, "", "api", "import", writeFile(t, "bad.yaml", "nope: 1\n"), "--name", "bad")
	if code != 2 { // the server's 400: the document is invalid input (cli.ExitInvalid)
		t.Fatalf("a document that is not OpenAPI: %d", code)
	}
	code, _, _ = sluice(t, "", "api", "import", writeFile(t, "x.yaml", petsAPI))
	if code != 2 {
		t.Fatalf("no --name: %d", code)
	}
	if code, out, _ := sluice(t, "", "api", "list"); code != 0 || !strings.Contains(out, `"name": "pets"`) {
		t.Fatalf("list: %d %s", code, out)
	}
	_, out, _ = sluice(t, "", "accounts", "create", "--name", "vet", "--apis", "pets")
	var created struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal([]byte(out), &created)
	t.Setenv("SLUICE_API_KEY", created.APIKey)
	code, out, errOut = sluice(t, "", "search", "vaccination", "record", "of", "a", "pet")
	if code != 0 || !strings.Contains(strings.Split(out, "\n")[0], "pets.listVaccinations") {
		t.Fatalf("search: %d %q %s", code, out, errOut)
	}
	// explain (admin): the query's words and their expansions. "shots" is in
	// no entry; the word vectors widen it.
	code, out, errOut = sluice(t, "", "api", "explain", "dog", "shots")
	if code != 0 || !strings.Contains(out, "shot") || !strings.Contains(out, "0 entries") || !strings.Contains(out, "from shots") {
		t.Fatalf("explain: %d %q %s", code, out, errOut)
	}
	code, out, _ = sluice(t, "", "api", "explain", "--json", "dog", "shots")
	var explained struct {
		Terms []struct{ Term, Via, From string }
	}
	if err := json.Unmarshal([]byte(out), &explained); code != 0 || err != nil || len(explained.Terms) < 2 || explained.Terms[0].Via != "query" {
		t.Fatalf("explain --json: %d %v %s", code, err, out)
	}
	// An account may not: the expansions name words of every entry.
	adminKey := os.Getenv("SLUICE_ADMIN_KEY")
	t.Setenv("SLUICE_ADMIN_KEY", created.APIKey)
	if code, _, errOut := sluice(t, "", "api", "explain", "dog"); code == 0 {
		t.Fatalf("explain as an account: %d %s", code, errOut)
	}
	t.Setenv("SLUICE_ADMIN_KEY", adminKey)
	if code, _, _ := sluice(t, "", "api", "rm", "pets"); code != 0 {
		t.Fatalf("rm: %d", code)
	}
	if code, _, errOut := sluice(t, "", "search", "vaccination"); code != 0 || !strings.Contains(errOut, "nothing found") {
		t.Fatalf("after rm: %d %s", code, errOut)
	}
}

// sluice api learn teaches the server's discovery a labeled file's
// questions; api usage lists the words learnt; api forget drops them.
func TestAPILearnUsageForget(t *testing.T) {
	adminServer(t)
	if code, _, errOut := sluice(t, "", "api", "import", writeFile(t, "pets.yaml", petsAPI), "--name", "pets"); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	_, out, _ := sluice(t, "", "accounts", "create", "--name", "vet", "--apis", "pets")
	var created struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal([]byte(out), &created)
	t.Setenv("SLUICE_API_KEY", created.APIKey)
	if code, _, errOut := sluice(t, "", "search", "giraffe"); code != 0 || !strings.Contains(errOut, "nothing found") {
		t.Fatalf("before learning: %d %s", code, errOut)
	}
	examples := writeFile(t, "examples.jsonl", `{"query":"giraffe checkup","relevant":["pets.listVaccinations"],"split":"train"}`+"\n"+
		`{"query":"giraffe","relevant":["pets.listVaccinations","pets.listPets"],"split":"heldout"}`+"\n")
	code, out, errOut := sluice(t, "", "api", "learn", examples, "--split", "train")
	if code != 0 || !strings.Contains(out, "1 queries, 1 entries taught, 2 new words") {
		t.Fatalf("learn: %d %q %s", code, out, errOut)
	}
	if code, out, _ := sluice(t, "", "search", "giraffe"); code != 0 || !strings.Contains(strings.Split(out, "\n")[0], "pets.listVaccinations") {
		t.Fatalf("after learning: %d %q", code, out)
	}
	if code, out, _ := sluice(t, "", "api", "learn", examples); code != 0 || !strings.Contains(out, "2 queries, 3 entries taught, 1 new words") {
		t.Fatalf("learn again, all splits: %d %q", code, out)
	}
	code, out, _ = sluice(t, "", "api", "usage")
	if code != 0 || !strings.Contains(out, "operation pets.listVaccinations: checkup×1 giraff×1") || !strings.Contains(out, "operation pets.listPets: giraff×1") {
		t.Fatalf("usage: %d %q", code, out)
	}
	if code, out, _ := sluice(t, "", "api", "usage", "--kind", "operation", "--id", "pets.listPets", "--json"); code != 0 || strings.Contains(out, "listVaccinations") || !strings.Contains(out, `"giraff": 1`) {
		t.Fatalf("usage of one entry: %d %q", code, out)
	}
	// A line naming an entry the server lacks fails, naming the line.
	bad := writeFile(t, "bad.jsonl", `{"query":"giraffe","relevant":["pets.nope"]}`+"\n")
	if code, _, errOut := sluice(t, "", "api", "learn", bad); code != 1 || !strings.Contains(errOut, "line 1 (pets.nope)") {
		t.Fatalf("unknown entry: %d %s", code, errOut)
	}
	for _, args := range [][]string{{}, {"--id", "pets.listPets"}, {"--all", "--id", "x", "--kind", "operation"}, {"--kind", "widget", "--id", "x"}} {
		if code, _, _ := sluice(t, "", append([]string{"api", "forget"}, args...)...); code != 2 {
			t.Fatalf("forget %v: %d", args, code)
		}
	}
	if code, out, _ := sluice(t, "", "api", "forget", "--kind", "operation", "--id", "pets.listPets"); code != 0 || !strings.Contains(out, "1 words of accounts forgotten") {
		t.Fatalf("forget one: %d %q", code, out)
	}
	if code, out, _ := sluice(t, "", "api", "forget", "--all"); code != 0 || !strings.Contains(out, "2 words of accounts forgotten") {
		t.Fatalf("forget all: %d %q", code, out)
	}
	if code, _, errOut := sluice(t, "", "search", "giraffe"); code != 0 || !strings.Contains(errOut, "nothing found") {
		t.Fatalf("after forgetting: %d %s", code, errOut)
	}
}

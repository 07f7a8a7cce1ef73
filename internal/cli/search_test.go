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
	code, _, _ = sluice(t, "", "api", "import", writeFile(t, "bad.yaml", "nope: 1\n"), "--name", "bad")
	if code != 1 {
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

package discovery_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

const petstore = `openapi: 3.0.3
info: {title: Pets, version: "1"}
servers:
  - url: https://{region}.pets.example.com/v1/
    variables: {region: {default: eu}}
paths:
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, description: The pet's id, schema: {type: string}}
    get:
      operationId: getPet
      summary: Get a pet
      description: Returns one pet.
      tags: [pets]
      responses: {"200": {description: ok}}
    delete:
      summary: Delete a pet
      parameters:
        - {name: petId, in: path, required: true, description: Id of the pet to delete, schema: {type: string}}
      responses: {"204": {description: gone}}
  /pets:
    post:
      operationId: createPet
      summary: Add a pet
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NewPet"}
      responses: {"201": {description: created}}
components:
  schemas:
    NewPet:
      type: object
      required: [name]
      properties:
        name: {type: string, description: The pet's name}
        species: {type: string, description: Dog, cat, ...}
`

func TestFromOpenAPI(t *testing.T) {
	es, err := discovery.FromOpenAPI("pets", []byte(petstore))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		t.Fatalf("%d entries: %+v", len(es), es)
	}
	byID := map[string]discovery.Entry{}
	for _, e := range es {
		byID[e.ID] = e
		if e.Kind != discovery.KindOperation || e.Source != "pets" || e.Permission != e.ID {
			t.Errorf("entry %+v", e)
		}
	}
	get := byID["pets.getPet"]
	if get.Method != "GET" || get.URL != "https://eu.pets.example.com/v1/pets/{petId}" || get.Summary != "Get a pet" ||
		len(get.Parameters) != 1 || get.Parameters[0].Description != "The pet's id" || get.Tags[0] != "pets" {
		t.Errorf("getPet %+v", get)
	}
	del := byID["pets.DELETE./pets/{petId}"]
	if del.Name != "DELETE /pets/{petId}" || len(del.Parameters) != 1 || del.Parameters[0].Description != "Id of the pet to delete" {
		t.Errorf("delete %+v", del)
	}
	create := byID["pets.createPet"]
	if len(create.Parameters) != 2 || create.Parameters[0].Name != "name" || !create.Parameters[0].Required || create.Parameters[0].In != "body" {
		t.Errorf("createPet %+v", create.Parameters)
	}
}

func TestFromOpenAPIRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"pets", `{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {}}`, "OpenAPI 3.0 or 3.1"},
		{"pets", "openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {$ref: 'other.yaml#/r'}\n", "external reference"},
		{"pets", "openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths:\n  /a: {get: {operationId: x, responses: {'200': {description: ok}}}}\n  /b: {get: {operationId: x, responses: {'200': {description: ok}}}}\n", `operationId "x" of GET /`},
		{"a.b", petstore, "API name"},
		{"pets", "{not yaml: [", "pets"},
	} {
		_, err := discovery.FromOpenAPI(tc.name, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.doc[:20], err, tc.want)
		}
	}
}

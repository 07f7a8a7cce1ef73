package datamodel

import "fmt"

// KindOf names a JSON value's type the way messages say it: "null", "a boolean",
// "a number", "a string", "an array", "an object".
func KindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, int, int64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

package console

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sluicehq/sluice/internal/ids"
)

// The cookies: the sign-in's session id, and the CSRF token of the sign-in
// form (a browser with no session yet still gets a form that a page of
// another site cannot post).
const (
	sessionCookie = "sluice_console"
	signinCookie  = "sluice_console_signin"
	csrfField     = "csrf"
	maxFormBytes  = 1 << 20
)

// contentSecurityPolicy allows the console's own script, styles and
// fetches and nothing else: no inline script or style, no frames, forms
// posted only to the console.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func secureHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

// setCookie sets an HttpOnly, SameSite=Strict cookie on the console's path
// that ends at expires (a zero expires deletes it). Secure when the request
// came over TLS, here or at a proxy that says so (X-Forwarded-Proto: a
// forged header only makes the forger's own cookie stricter).
func setCookie(w http.ResponseWriter, r *http.Request, name, value string, expires time.Time) {
	c := &http.Cookie{Name: name, Value: value, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")}
	if expires.IsZero() {
		c.MaxAge = -1
	} else {
		c.Expires = expires.UTC()
		c.MaxAge = int(time.Until(expires).Seconds())
	}
	http.SetCookie(w, c)
}

func cookieValue(r *http.Request, name string) string {
	if c, err := r.Cookie(name); err == nil {
		return c.Value
	}
	return ""
}

// sameToken compares a form's token with the expected one in constant time;
// an empty expected token matches nothing.
func sameToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// signinToken is the sign-in form's CSRF token: the one its cookie holds,
// else a new one set in the cookie.
func signinToken(w http.ResponseWriter, r *http.Request) string {
	if t := cookieValue(r, signinCookie); strings.HasPrefix(t, "csrf-") {
		return t
	}
	t := ids.New(ids.ConsoleCSRF)
	setCookie(w, r, signinCookie, t, time.Now().Add(time.Hour))
	return t
}

// handler is a page or action of a signed-in browser.
type handler func(w http.ResponseWriter, r *http.Request, ss *session)

// signedIn runs h with the request's sign-in. Without one, a GET goes to the
// sign-in page and comes back after; anything else is refused (403): it
// cannot carry a valid CSRF token. A POST must carry the sign-in's token.
func (c *Console) signedIn(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ss := c.sessions.get(cookieValue(r, sessionCookie))
		if ss == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, Prefix+"signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			c.refuse(w, r, nil, http.StatusForbidden, "You are not signed in (or your sign-in ended): sign in again.")
			return
		}
		if r.Method != http.MethodGet {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if err := r.ParseForm(); err != nil {
				c.refuse(w, r, ss, http.StatusBadRequest, "The form could not be read: "+err.Error())
				return
			}
			if !sameToken(r.PostForm.Get(csrfField), ss.csrf) {
				c.refuse(w, r, ss, http.StatusForbidden, "The form's CSRF token is missing or wrong: reload the page and send it again.")
				return
			}
		}
		h(w, r, ss)
	}
}

// safeNext is where to go after sign-in: a console path, never another site.
func safeNext(next string) string {
	if strings.HasPrefix(next, Prefix) && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return Prefix + "runs"
}

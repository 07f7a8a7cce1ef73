package console

import (
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"
)

func (c *Console) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix, http.StatusFound)
	})
	m.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix, http.StatusFound)
	})
	m.HandleFunc("GET /console/{$}", c.signedIn(func(w http.ResponseWriter, r *http.Request, _ *session) {
		http.Redirect(w, r, Prefix+"runs", http.StatusSeeOther)
	}))
	static, _ := fs.Sub(staticFiles, "static")
	m.Handle("GET /console/static/", http.StripPrefix(Prefix+"static/", http.FileServerFS(static)))
	m.HandleFunc("GET /console/signin", c.signinPage)
	m.HandleFunc("POST /console/signin", c.signin)
	m.HandleFunc("POST /console/signout", c.signedIn(c.signout))

	m.HandleFunc("GET /console/runs", c.signedIn(c.runsPage))
	m.HandleFunc("GET /console/runs/{id}", c.signedIn(c.runPage))
	m.HandleFunc("GET /console/runs/{id}/events", c.signedIn(c.runEvents))
	m.HandleFunc("POST /console/runs/{id}/cancel", c.signedIn(c.runCancel))
	m.HandleFunc("POST /console/runs/{id}/answer", c.signedIn(c.runAnswer))
	m.HandleFunc("GET /console/decisions", c.signedIn(c.decisionsPage))

	m.HandleFunc("GET /console/capabilities", c.signedIn(c.capabilitiesPage))
	m.HandleFunc("GET /console/capabilities/{ns}/{id}", c.signedIn(c.capabilityPage))
	m.HandleFunc("POST /console/capabilities/{ns}/{id}/run", c.signedIn(c.capabilityRun))
	m.HandleFunc("GET /console/tools", c.signedIn(c.toolsPage))
	m.HandleFunc("GET /console/agents", c.signedIn(c.agentsPage))
	m.HandleFunc("POST /console/agents/invoke", c.signedIn(c.agentInvoke))

	m.HandleFunc("GET /console/admin", c.signedIn(c.accountsPage))
	m.HandleFunc("GET /console/admin/accounts", c.signedIn(c.accountsPage))
	m.HandleFunc("POST /console/admin/accounts", c.signedIn(c.accountCreate))
	m.HandleFunc("GET /console/admin/accounts/{id}", c.signedIn(c.accountPage))
	m.HandleFunc("POST /console/admin/accounts/{id}", c.signedIn(c.accountUpdate))
	m.HandleFunc("POST /console/admin/accounts/{id}/keys", c.signedIn(c.keyCreate))
	m.HandleFunc("POST /console/admin/accounts/{id}/keys/{key}/revoke", c.signedIn(c.keyRevoke))
	m.HandleFunc("GET /console/admin/credentials", c.signedIn(c.credentialsPage))
	m.HandleFunc("POST /console/admin/credentials", c.signedIn(c.credentialPut))
	m.HandleFunc("GET /console/admin/audit", c.signedIn(c.auditPage))
	m.HandleFunc("GET /console/admin/system", c.signedIn(c.systemPage))
	m.HandleFunc("GET /console/admin/stats.json", c.signedIn(c.statsJSON))

	m.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) {
		c.refuse(w, r, c.sessions.get(cookieValue(r, sessionCookie)), http.StatusNotFound, "There is no console page at "+r.URL.Path+".")
	})
	return m
}

func (c *Console) signinPage(w http.ResponseWriter, r *http.Request) {
	if c.sessions.get(cookieValue(r, sessionCookie)) != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	notice := ""
	if r.URL.Query().Get("ended") != "" {
		notice = "Your sign-in ended: the key is no longer accepted, or it expired. Sign in again."
	}
	c.render(w, http.StatusOK, "signin", nil, view{Title: "Sign in", Notice: notice, CSRF: signinToken(w, r),
		Data: map[string]any{"Next": safeNext(r.URL.Query().Get("next"))}})
}

// signin takes a key from the form, has the gateway open a connection for
// it (the key checked as the API checks it), and keeps the sign-in under a
// random id, the only thing the cookie holds.
func (c *Console) signin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		c.refuse(w, r, nil, http.StatusBadRequest, "The form could not be read.")
		return
	}
	if !sameToken(r.PostForm.Get(csrfField), cookieValue(r, signinCookie)) {
		c.refuse(w, r, nil, http.StatusForbidden, "The form's CSRF token is missing or wrong: reload the sign-in page and send it again.")
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	key := strings.TrimSpace(r.PostForm.Get("key"))
	if key == "" {
		c.render(w, http.StatusBadRequest, "signin", nil, view{Title: "Sign in", Notice: "Enter an API key.",
			CSRF: signinToken(w, r), Data: map[string]any{"Next": next}})
		return
	}
	conn, err := c.caller.OpenConsole(r.Context(), key)
	if err != nil {
		e := errorOf(err)
		msg := "That key was not accepted."
		if e.Code != "unauthenticated" {
			msg = "Sign-in failed: " + e.Message
		}
		c.render(w, e.Status, "signin", nil, view{Title: "Sign in", Notice: msg, CSRF: signinToken(w, r),
			Data: map[string]any{"Next": next}})
		return
	}
	ss := c.sessions.add(conn)
	setCookie(w, r, sessionCookie, ss.id, ss.expires)
	setCookie(w, r, signinCookie, "", time.Time{})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (c *Console) signout(w http.ResponseWriter, r *http.Request, ss *session) {
	c.sessions.end(ss.id)
	setCookie(w, r, sessionCookie, "", time.Time{})
	http.Redirect(w, r, Prefix+"signin?"+url.Values{"signedout": {"1"}}.Encode(), http.StatusSeeOther)
}

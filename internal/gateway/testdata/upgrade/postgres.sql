--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: sluice_rate_take(text, text[], timestamp with time zone[], timestamp with time zone[], bigint[], bigint, text, bigint, bigint, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.sluice_rate_take(acct text, kinds text[], starts timestamp with time zone[], ends timestamp with time zone[], limits bigint[], n bigint, bkind text, binterval bigint, bburst bigint, now_at timestamp with time zone) RETURNS TABLE(taken boolean, counts bigint[], tat timestamp with time zone)
    LANGUAGE plpgsql
    AS $$
DECLARE
	cur  bigint[] := '{}';
	c    bigint;
	btat timestamptz;
	ok   boolean := true;
BEGIN
	PERFORM set_config('synchronous_commit', 'off', true);
	PERFORM pg_advisory_xact_lock(1936487028, hashtext(acct));
	DELETE FROM rate_counters r WHERE r.account_id = acct AND r.window_end <= now_at;
	FOR i IN 1 .. coalesce(array_length(kinds, 1), 0) LOOP
		SELECT r.count INTO c FROM rate_counters r
			WHERE r.account_id = acct AND r.kind = kinds[i] AND r.window_start = starts[i];
		c := coalesce(c, 0);
		cur := cur || c;
		IF limits[i] > 0 AND c + n > limits[i] THEN
			ok := false;
		END IF;
	END LOOP;
	IF bkind IS NOT NULL THEN
		SELECT r.window_end INTO btat FROM rate_counters r
			WHERE r.account_id = acct AND r.kind = bkind AND r.window_start = 'epoch';
		IF greatest(coalesce(btat, now_at), now_at) + (n * binterval) * interval '1 microsecond'
			> now_at + (bburst * binterval) * interval '1 microsecond' THEN
			ok := false;
		END IF;
	END IF;
	IF ok AND n > 0 THEN
		INSERT INTO rate_counters AS r (account_id, kind, window_start, window_end, count)
			SELECT acct, u.k, u.s, u.e, n FROM unnest(kinds, starts, ends) AS u(k, s, e)
			ON CONFLICT (account_id, kind, window_start) DO UPDATE SET count = r.count + excluded.count;
		IF bkind IS NOT NULL THEN
			INSERT INTO rate_counters AS r (account_id, kind, window_start, window_end, count)
			VALUES (acct, bkind, 'epoch', greatest(coalesce(btat, now_at), now_at) + (n * binterval) * interval '1 microsecond', 0)
			ON CONFLICT (account_id, kind, window_start) DO UPDATE SET window_end = excluded.window_end;
		END IF;
	END IF;
	RETURN QUERY SELECT ok, cur, btat;
END
$$;


--
-- Name: sluice_slot_take(text, text, integer, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.sluice_slot_take(acct text, slot text, maxslots integer, now_at timestamp with time zone, until_at timestamp with time zone) RETURNS TABLE(held integer, taken boolean)
    LANGUAGE plpgsql
    AS $$
DECLARE
	h integer;
BEGIN
	PERFORM set_config('synchronous_commit', 'off', true);
	PERFORM pg_advisory_xact_lock(1936487276, hashtext(acct));
	DELETE FROM rate_slots s WHERE s.account_id = acct AND s.expires_at <= now_at;
	UPDATE rate_slots s SET expires_at = until_at WHERE s.slot_id = slot AND s.account_id = acct;
	IF FOUND THEN
		RETURN QUERY SELECT count(*)::integer, true FROM rate_slots s WHERE s.account_id = acct;
		RETURN;
	END IF;
	SELECT count(*) INTO h FROM rate_slots s WHERE s.account_id = acct;
	IF maxslots > 0 AND h >= maxslots THEN
		RETURN QUERY SELECT h, false;
		RETURN;
	END IF;
	INSERT INTO rate_slots (slot_id, account_id, expires_at) VALUES (slot, acct, until_at);
	RETURN QUERY SELECT h + 1, true;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: accounts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.accounts (
    id text NOT NULL COLLATE pg_catalog."C",
    name text NOT NULL,
    permissions text NOT NULL,
    limits text,
    disabled boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: agents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.agents (
    name text NOT NULL COLLATE pg_catalog."C",
    entry bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id text NOT NULL COLLATE pg_catalog."C",
    account_id text NOT NULL COLLATE pg_catalog."C",
    hash bytea NOT NULL,
    prefix text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    last_used_at timestamp with time zone
);


--
-- Name: audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit (
    id bigint NOT NULL,
    "time" timestamp with time zone NOT NULL,
    request_id text NOT NULL,
    account_id text NOT NULL COLLATE pg_catalog."C",
    method text NOT NULL,
    operation text NOT NULL,
    decision text NOT NULL,
    latency_ms bigint NOT NULL,
    status text NOT NULL,
    error_code text NOT NULL,
    details text
);


--
-- Name: audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.audit ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: capabilities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.capabilities (
    namespace text NOT NULL COLLATE pg_catalog."C",
    id text NOT NULL COLLATE pg_catalog."C",
    latest text NOT NULL COLLATE pg_catalog."C",
    versions integer NOT NULL
);


--
-- Name: capability_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.capability_versions (
    seq bigint NOT NULL,
    namespace text NOT NULL COLLATE pg_catalog."C",
    id text NOT NULL COLLATE pg_catalog."C",
    version text NOT NULL COLLATE pg_catalog."C",
    checksum text NOT NULL,
    type text NOT NULL,
    level text NOT NULL,
    audit_status text NOT NULL,
    description text NOT NULL,
    format text NOT NULL,
    document bytea NOT NULL,
    published_by text NOT NULL,
    published_at timestamp with time zone NOT NULL
);


--
-- Name: capability_versions_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.capability_versions ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.capability_versions_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: checkpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.checkpoints (
    execution_id text NOT NULL COLLATE pg_catalog."C",
    data text NOT NULL,
    saved_at timestamp with time zone NOT NULL
);


--
-- Name: credentials; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credentials (
    id text NOT NULL COLLATE pg_catalog."C",
    type text NOT NULL,
    description text NOT NULL,
    master_key_id text NOT NULL,
    nonce bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    hosts text DEFAULT ''::text NOT NULL
);


--
-- Name: discovery_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.discovery_usage (
    kind text NOT NULL COLLATE pg_catalog."C",
    entry_id text NOT NULL COLLATE pg_catalog."C",
    term text NOT NULL COLLATE pg_catalog."C",
    account_id text NOT NULL COLLATE pg_catalog."C",
    at timestamp with time zone NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    execution_id text NOT NULL COLLATE pg_catalog."C",
    seq bigint NOT NULL,
    data text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: executions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.executions (
    seq bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    account_id text NOT NULL COLLATE pg_catalog."C",
    client_id text COLLATE pg_catalog."C",
    digest text NOT NULL,
    document bytea NOT NULL,
    input text,
    status text NOT NULL,
    async boolean NOT NULL,
    session_id text NOT NULL,
    budget_ms bigint NOT NULL,
    result text,
    errors text,
    event_seq bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    kind text DEFAULT 'a2e'::text NOT NULL COLLATE pg_catalog."C",
    CONSTRAINT executions_kind_check CHECK ((kind = ANY (ARRAY['a2e'::text, 'a2s'::text, 'agent_workflow'::text]))),
    CONSTRAINT executions_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'waiting'::text, 'success'::text, 'failed'::text, 'partial'::text, 'cancelled'::text])))
);


--
-- Name: executions_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.executions ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.executions_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: knowledge_bases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.knowledge_bases (
    name text NOT NULL,
    kind text NOT NULL,
    format text NOT NULL,
    document bytea NOT NULL,
    checksum text NOT NULL,
    created_by text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: kv; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kv (
    account_id text NOT NULL COLLATE pg_catalog."C",
    key text NOT NULL COLLATE pg_catalog."C",
    value text NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: kv_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kv_usage (
    account_id text NOT NULL COLLATE pg_catalog."C",
    keys integer NOT NULL
);


--
-- Name: mcp_servers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_servers (
    account_id text NOT NULL COLLATE pg_catalog."C",
    name text NOT NULL COLLATE pg_catalog."C",
    command text NOT NULL,
    url text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: queue_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.queue_groups (
    topic text NOT NULL COLLATE pg_catalog."C",
    grp text NOT NULL COLLATE pg_catalog."C",
    served bigint DEFAULT 0 NOT NULL
);


--
-- Name: queue_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.queue_items (
    seq bigint NOT NULL,
    topic text NOT NULL COLLATE pg_catalog."C",
    id text NOT NULL COLLATE pg_catalog."C",
    payload bytea NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    enqueued_at timestamp with time zone NOT NULL,
    visible_at timestamp with time zone NOT NULL,
    owner text,
    token text,
    expires_at timestamp with time zone,
    grp text DEFAULT ''::text NOT NULL COLLATE pg_catalog."C"
);


--
-- Name: queue_items_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.queue_items ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.queue_items_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: rate_counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rate_counters (
    account_id text NOT NULL COLLATE pg_catalog."C",
    kind text NOT NULL COLLATE pg_catalog."C",
    window_start timestamp with time zone NOT NULL,
    window_end timestamp with time zone NOT NULL,
    count bigint NOT NULL
);


--
-- Name: rate_slots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rate_slots (
    slot_id text NOT NULL COLLATE pg_catalog."C",
    account_id text NOT NULL COLLATE pg_catalog."C",
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone NOT NULL
);


--
-- Name: scoped_value_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.scoped_value_usage (
    area text NOT NULL COLLATE pg_catalog."C",
    account_id text NOT NULL COLLATE pg_catalog."C",
    scope text NOT NULL COLLATE pg_catalog."C",
    keys integer NOT NULL
);


--
-- Name: scoped_values; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.scoped_values (
    area text NOT NULL COLLATE pg_catalog."C",
    account_id text NOT NULL COLLATE pg_catalog."C",
    scope text NOT NULL COLLATE pg_catalog."C",
    key text NOT NULL COLLATE pg_catalog."C",
    value text NOT NULL,
    expires_at timestamp with time zone,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.settings (
    name text NOT NULL COLLATE pg_catalog."C",
    value bytea NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Data for Name: accounts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.accounts VALUES ('admin', 'admin', '{"operations":null,"hosts":null,"apis":null,"credentials":null,"agents":null,"mcp_servers":null,"capability_level":"admin","capabilities":null,"knowledge_bases":null}', NULL, false, '2026-11-27 12:15:06.143896+00', '2026-11-27 12:15:06.143896+00');
INSERT INTO public.accounts VALUES ('acct-37d0cb523995107e3dd0', 'test agent', '{"operations":["*"],"hosts":["*"],"apis":null,"credentials":["upgrade-api"],"agents":["extract","stall"],"mcp_servers":null,"capability_level":"basic","capabilities":null,"knowledge_bases":null}', '{"requests_per_minute":-1,"requests_per_hour":-1,"requests_per_day":-1}', false, '2026-11-27 12:15:06.425065+00', '2026-11-27 12:15:06.425065+00');


--
-- Data for Name: agents; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.agents VALUES ('extract', '\x7b226e616d65223a2265787472616374222c2275726c223a22687474703a2f2f3132372e302e302e313a3431313933222c2274696d656f7574223a33303030302c2272657472795f636f6e666967223a7b226d61785f72657472696573223a332c22696e697469616c5f64656c61795f6d73223a313030302c226d61785f64656c61795f6d73223a33303030302c226261636b6f66665f6d756c7469706c696572223a327d7d', '2026-11-27 12:15:06.417161+00', '2026-11-27 12:15:06.417161+00');
INSERT INTO public.agents VALUES ('stall', '\x7b226e616d65223a227374616c6c222c2275726c223a22687474703a2f2f3132372e302e302e313a3333303837222c2274696d656f7574223a33303030302c2272657472795f636f6e666967223a7b226d61785f72657472696573223a332c22696e697469616c5f64656c61795f6d73223a313030302c226d61785f64656c61795f6d73223a33303030302c226261636b6f66665f6d756c7469706c696572223a327d7d', '2026-11-27 12:15:06.419148+00', '2026-11-27 12:15:06.419148+00');


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.api_keys VALUES ('566ew7s3qp3t4', 'acct-37d0cb523995107e3dd0', '\x2fe0b7b82a6328bd8f5a6128476190913f3874ab61578e375fbbdeb8165c206b', 'slk_566ew7s3qp3t4', '2026-11-27 12:15:06.425465+00', NULL, NULL, NULL);


--
-- Data for Name: audit; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (1, '2026-11-27 12:15:06.414377+00', 'req-8f94411d870737c6bd6e3f9c', 'admin', 'admin.credentials.put', '', 'allow', 1, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (2, '2026-11-27 12:15:06.416686+00', 'req-4535c72de14611dcd38f83bd', 'admin', 'admin.agents.register', '', 'allow', 1, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (3, '2026-11-27 12:15:06.41902+00', 'req-72965573dc9b30806b3738c1', 'admin', 'admin.agents.register', '', 'allow', 0, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (4, '2026-11-27 12:15:06.420555+00', 'req-b47bd0e8f507308d0a343b91', 'admin', 'a2s.registry.publish', '', 'allow', 3, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (5, '2026-11-27 12:15:06.425002+00', 'req-2152449d03bb53a0fef09ea6', 'admin', 'admin.accounts.create', '', 'allow', 2, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (6, '2026-11-27 12:15:06.433607+00', 'exec-9db546d7a2391b7ab968b035', 'acct-37d0cb523995107e3dd0', 'workflow.execute', 'double:TransformData', 'allow', 0, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (7, '2026-11-27 12:15:06.428303+00', 'req-8bdc86131a9fcb12f4bfa8d7', 'acct-37d0cb523995107e3dd0', 'workflow.execute', '', 'allow', 6, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (8, '2026-11-27 12:15:06.435257+00', 'req-b9d018ecd3de179caf26f535', 'acct-37d0cb523995107e3dd0', 'capability.run', '', 'allow', 3, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (9, '2026-11-27 12:15:06.438696+00', 'req-5c1555b267733516b8aaaabb', 'acct-37d0cb523995107e3dd0', 'capability.decide', '', 'allow', 5, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (10, '2026-11-27 12:15:06.44507+00', 'req-5449fc5e6af9611e12ab2573', 'acct-37d0cb523995107e3dd0', 'agent.workflow.run', '', 'allow', 2, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (11, '2026-11-27 12:15:06.448602+00', 'req-3a1b6ea9cde250e83e46973c', 'acct-37d0cb523995107e3dd0', 'agent.workflow.get', '', 'allow', 6, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (12, '2026-11-27 12:15:06.466512+00', 'req-87ba41d5c4c1d9a7ef384fa8', 'acct-37d0cb523995107e3dd0', 'agent.workflow.get', '', 'allow', 1, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (13, '2026-11-27 12:15:06.468585+00', 'req-b9bd576e5d502e29a1c933c7', 'acct-37d0cb523995107e3dd0', 'capability.run', '', 'allow', 5, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (14, '2026-11-27 12:15:06.474441+00', 'req-d7776a082eb28e2334dd00cf', 'acct-37d0cb523995107e3dd0', 'workflow.execute', '', 'allow', 2, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (15, '2026-11-27 12:15:06.477842+00', 'req-9810388cc592088eead7a8a3', 'acct-37d0cb523995107e3dd0', 'execution.get', '', 'allow', 24, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (16, '2026-11-27 12:15:06.521973+00', 'req-73de8eb0724ee6f479447ea2', 'acct-37d0cb523995107e3dd0', 'execution.get', '', 'allow', 9, 'succeeded', '', NULL);
INSERT INTO public.audit OVERRIDING SYSTEM VALUE VALUES (17, '2026-11-27 12:15:06.536862+00', 'req-b91212ebe21f932fbc42795a', 'acct-37d0cb523995107e3dd0', 'agent.workflow.run', '', 'allow', 8, 'succeeded', '', NULL);


--
-- Data for Name: capabilities; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.capabilities VALUES ('finance', 'Approve', '1.2.0', 1);


--
-- Data for Name: capability_versions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.capability_versions OVERRIDING SYSTEM VALUE VALUES (1, 'finance', 'Approve', '1.2.0', 'sha256:711c185ac04290a3630f7ac07d616e61865aba33dd0cc178db60e134e11387c4', 'atomic', 'basic', 'unaudited', 'asks the agent, then records the verdict', 'yaml', '\x636865636b73756d3a20227368613235363a37313163313835616330343239306133363330663761633037643631366536313836356162613333646430636331373864623630653133346531313338376334220a6132733a20312e302e300a69643a20417070726f76650a76657273696f6e3a20312e322e300a747970653a2061746f6d69630a6465736372697074696f6e3a2061736b7320746865206167656e742c207468656e207265636f7264732074686520766572646963740a61756469743a207b7374617475733a20756e617564697465647d0a7065726d697373696f6e733a207b6c6576656c3a2062617369637d0a696e707574733a0a2020616d6f756e743a207b747970653a206e756d6265727d0a6f7574707574733a0a2020766572646963743a207b747970653a20737472696e672c206c6966656379636c653a2070657273697374656e747d0a7461736b733a0a20202d2069643a206a756467650a20202020747970653a2070726f6d70740a20202020696e707574733a0a202020202020616d6f756e743a207b6d617070696e673a20696e707574732e616d6f756e747d0a202020206f7574707574733a0a202020202020766572646963743a207b747970653a20737472696e672c206c6966656379636c653a207461736b7d0a2020202070726f6d70743a0a20202020202074656d706c6174653a2022417070726f7665206120726566756e64206f66207b616d6f756e747d204555523f220a202020202020666f726d61743a0a2020202020202020766572646963743a207b747970653a20737472696e672c20656e756d3a205b22796573222c20226e6f225d7d0a20202d2069643a207265636f72640a20202020747970653a206167656e745f6465636973696f6e0a20202020696e707574733a0a202020202020766572646963743a207b6d617070696e673a206a756467652e6f7574707574732e766572646963747d0a202020206f7574707574733a0a202020202020766572646963743a207b747970653a20737472696e672c206c6966656379636c653a2070657273697374656e747d0a20202020646566696e6974696f6e3a0a2020202020206c6f6769633a207c0a202020202020202076657264696374203d2076657264696374203d3d202279657322203f2022617070726f76656422203a202272656675736564220a', 'admin', '2026-11-27 12:15:06.420959+00');


--
-- Data for Name: checkpoints; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.checkpoints VALUES ('run-4babfa6c834f38c6c5636cce', '{"version":1,"executionId":"run-4babfa6c834f38c6c5636cce","planDigest":"sha256:711c185ac04290a3630f7ac07d616e61865aba33dd0cc178db60e134e11387c4","account":"acct-37d0cb523995107e3dd0","status":"success","workflow":{"a2s_tasks":{"judge":{"verdict":"no"},"record":{"verdict":"refused"}}},"input":{"amount":10},"results":{"judge":{"verdict":"no"},"record":{"verdict":"refused"}},"errors":[],"finished":["0","1"],"succeeded":2,"failed":0,"elapsedMs":1,"budgetMs":30000,"startedAt":"2026-11-27T12:15:06.436642524Z","savedAt":"2026-11-27T12:15:06.4415717Z"}', '2026-11-27 12:15:06.441621+00');
INSERT INTO public.checkpoints VALUES ('awf-f39fdf9b41ec77e906706411', '{"completed":["a","b"],"outputs":{"a":{"agent":"extract","echo":{"text":"finished"},"processed_at":"2026-11-27T12:15:06.454446+00:00"},"b":{"agent":"extract","echo":{"from":"finished"},"processed_at":"2026-11-27T12:15:06.460008+00:00"}}}', '2026-11-27 12:15:06.460392+00');
INSERT INTO public.checkpoints VALUES ('run-26d95078168bd848b40285bd', '{"version":1,"executionId":"run-26d95078168bd848b40285bd","planDigest":"sha256:711c185ac04290a3630f7ac07d616e61865aba33dd0cc178db60e134e11387c4","account":"acct-37d0cb523995107e3dd0","status":"waiting","workflow":{},"input":{"amount":40},"results":{},"errors":[],"finished":null,"succeeded":0,"failed":0,"elapsedMs":0,"budgetMs":30000,"startedAt":"2026-11-27T12:15:06.471416852Z","savedAt":"2026-11-27T12:15:06.471463472Z","waiting":{"position":"0","operationId":"judge","reason":"task judge waits for the agent''s answer","request":{"task":"judge","type":"prompt","prompt":"Approve a refund of 40 EUR?","inputs":{"amount":40},"expected_output":{"properties":{"verdict":{"enum":["yes","no"],"type":"string"}},"required":["verdict"],"type":"object"}}}}', '2026-11-27 12:15:06.4715+00');
INSERT INTO public.checkpoints VALUES ('exec-c3e5a2b4e436eaf09d5be9e0', '{"version":1,"executionId":"exec-c3e5a2b4e436eaf09d5be9e0","planDigest":"2a6de3d86d36bf5cc8083f0b97d26a4323797e9deed68a9a937ad3e54a7f2312","account":"acct-37d0cb523995107e3dd0","status":"running","workflow":{},"input":{"nums":[3,4]},"results":{},"errors":[],"finished":null,"state":{"0":{"wakeAt":"2026-11-27T12:15:16.514100012Z"}},"succeeded":0,"failed":0,"elapsedMs":3,"budgetMs":3600000,"startedAt":"2026-11-27T12:15:06.512299973Z","savedAt":"2026-11-27T12:15:06.515813161Z","parked":{"position":"0","since":"2026-11-27T12:15:06.514941193Z","until":"2026-11-27T12:15:16.514100012Z"}}', '2026-11-27 12:15:06.515858+00');
INSERT INTO public.checkpoints VALUES ('awf-2504348872e32e98d3ae44f1', '{"completed":["a"],"outputs":{"a":{"agent":"extract","echo":{"text":"hello"},"processed_at":"2026-11-27T12:15:06.557263+00:00"}}}', '2026-11-27 12:15:06.557807+00');


--
-- Data for Name: credentials; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.credentials VALUES ('upgrade-api', 'bearer-token', '', '7d52e19337bbcd2c', '\xbdead5a90c89ddd0ff2b7951', '\x29bf2efe4c1280b6a95c3c7adc0145689cebb82f3968b2bbed12cd13a236412eb5d5cd7fc2811a01a4eb9a81a68697aeb4ff1931c8c94dbb7a', '2026-11-27 12:15:06.41478+00', '2026-11-27 12:15:06.41478+00', '');


--
-- Data for Name: discovery_usage; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES ('exec-c3e5a2b4e436eaf09d5be9e0', 1, '{"protocol_version":"1.0","response_id":"cc337390-06d4-41ed-974e-4d448ab7c659","request_id":"exec-c3e5a2b4e436eaf09d5be9e0","sequence":0,"is_final":false,"status":"in_progress","response_kind":"e2a.chunk","timestamp":"2026-11-27T12:15:06.512352601+00:00","provenance":{"source_protocol":"e2a","converter":null,"converted_at":null,"details":{}},"body":{"delta":{"executionId":"exec-c3e5a2b4e436eaf09d5be9e0","kind":"execution.started","time":"2026-11-27T12:15:06.512343748Z","type":"execution.event"},"delta_kind":"custom"},"jsonrpc_id":null,"correlation_id":null,"task_id":null,"context_id":null,"session_id":null,"message_id":null,"is_stream":false,"identity_origin":"agent","channel":null,"user_id":"acct-37d0cb523995107e3dd0","agent_ref":null,"source_agent_id":null,"method":"workflow.execute","projections":{},"channel_context":{},"metadata":{},"a2a_metadata":{},"acp_meta":{}}', '2026-11-27 12:15:06.512375+00');
INSERT INTO public.events VALUES ('exec-c3e5a2b4e436eaf09d5be9e0', 2, '{"protocol_version":"1.0","response_id":"14a9f0d7-5503-4eed-bcb6-5deedfd64c64","request_id":"exec-c3e5a2b4e436eaf09d5be9e0","sequence":1,"is_final":false,"status":"in_progress","response_kind":"e2a.chunk","timestamp":"2026-11-27T12:15:06.513489032+00:00","provenance":{"source_protocol":"e2a","converter":null,"converted_at":null,"details":{}},"body":{"delta":{"attempt":1,"executionId":"exec-c3e5a2b4e436eaf09d5be9e0","kind":"started","operation":"Wait","operationId":"wait","position":"0","time":"2026-11-27T12:15:06.513482933Z","type":"execution.event"},"delta_kind":"custom"},"jsonrpc_id":null,"correlation_id":null,"task_id":null,"context_id":null,"session_id":null,"message_id":null,"is_stream":false,"identity_origin":"agent","channel":null,"user_id":"acct-37d0cb523995107e3dd0","agent_ref":null,"source_agent_id":null,"method":"workflow.execute","projections":{},"channel_context":{},"metadata":{},"a2a_metadata":{},"acp_meta":{}}', '2026-11-27 12:15:06.513507+00');
INSERT INTO public.events VALUES ('exec-c3e5a2b4e436eaf09d5be9e0', 3, '{"protocol_version":"1.0","response_id":"c99da226-6de4-4fe7-92f5-541f445bc482","request_id":"exec-c3e5a2b4e436eaf09d5be9e0","sequence":2,"is_final":false,"status":"in_progress","response_kind":"e2a.chunk","timestamp":"2026-11-27T12:15:06.514956125+00:00","provenance":{"source_protocol":"e2a","converter":null,"converted_at":null,"details":{}},"body":{"delta":{"delayMs":9999,"executionId":"exec-c3e5a2b4e436eaf09d5be9e0","kind":"parked","operation":"Wait","operationId":"wait","position":"0","time":"2026-11-27T12:15:06.514943026Z","type":"execution.event"},"delta_kind":"custom"},"jsonrpc_id":null,"correlation_id":null,"task_id":null,"context_id":null,"session_id":null,"message_id":null,"is_stream":false,"identity_origin":"agent","channel":null,"user_id":"acct-37d0cb523995107e3dd0","agent_ref":null,"source_agent_id":null,"method":"workflow.execute","projections":{},"channel_context":{},"metadata":{},"a2a_metadata":{},"acp_meta":{}}', '2026-11-27 12:15:06.514986+00');


--
-- Data for Name: executions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.executions OVERRIDING SYSTEM VALUE VALUES (1, 'exec-9db546d7a2391b7ab968b035', 'acct-37d0cb523995107e3dd0', 'upgrade-finished', 'sha256:fba12f57efbdc8bd7794356c2c33eb514540e8de0c484bb278afe486f9462563', '\x7b2274797065223a226f7065726174696f6e557064617465222c226f7065726174696f6e4964223a22646f75626c65222c226f7065726174696f6e223a7b225472616e73666f726d44617461223a7b22696e70757450617468223a222f696e7075742f6e756d73222c227472616e73666f726d223a226d6170222c22636f6e666967223a7b2265787072657373696f6e223a226974656d202a2032227d2c226f757470757450617468223a222f776f726b666c6f772f646f75626c6564227d7d7d0a7b2274797065223a22626567696e457865637574696f6e222c22657865637574696f6e4964223a22757067726164652d66696e6973686564222c226f7065726174696f6e4f72646572223a5b22646f75626c65225d7d0a', '{"nums":[1,2]}', 'success', false, '', 30000, '{"execution_id":"exec-9db546d7a2391b7ab968b035","status":"success","results":{"double":[2,4]},"errors":[],"duration_ms":0,"started_at":"2026-11-27T12:15:06.433474769Z","completed_at":"2026-11-27T12:15:06.433632674Z"}', 'null', 0, '2026-11-27 12:15:06.432036+00', '2026-11-27 12:15:06.432036+00', '2026-11-27 12:15:06.433742+00', 'a2e');
INSERT INTO public.executions OVERRIDING SYSTEM VALUE VALUES (2, 'run-4babfa6c834f38c6c5636cce', 'acct-37d0cb523995107e3dd0', NULL, 'a2s:sha256:711c185ac04290a3630f7ac07d616e61865aba33dd0cc178db60e134e11387c4', '\x7b226132735f72756e223a7b226e616d657370616365223a2266696e616e6365222c226964223a22417070726f7665222c2276657273696f6e223a22312e322e30222c22636865636b73756d223a227368613235363a37313163313835616330343239306133363330663761633037643631366536313836356162613333646430636331373864623630653133346531313338376334227d7d', '{"amount":10}', 'success', false, '', 30000, '{"run_id":"run-4babfa6c834f38c6c5636cce","status":"success","outputs":{"verdict":"refused"},"tasks":{"judge":{"verdict":"no"},"record":{"verdict":"refused"}},"errors":[],"duration_ms":1}', '[]', 0, '2026-11-27 12:15:06.43619+00', '2026-11-27 12:15:06.43619+00', '2026-11-27 12:15:06.442148+00', 'a2s');
INSERT INTO public.executions OVERRIDING SYSTEM VALUE VALUES (3, 'awf-f39fdf9b41ec77e906706411', 'acct-37d0cb523995107e3dd0', NULL, 'agentflow:fbec001843733aa1bdd1d0a20e02c28184d6bba144dd334062e3b6986cd0f5a6', '\x7b226167656e745f776f726b666c6f77223a7b22776f726b666c6f775f6964223a2277662d63222c226e616d65223a2263616e63656c6c61626c65222c2276657273696f6e223a22312e302e30222c2273746172745f73746570223a2261222c227374657073223a7b2261223a7b226964223a2261222c226167656e745f6e616d65223a2265787472616374222c226e6578745f73746570223a2262222c22696e7075745f6d617070696e67223a7b2274657874223a22247b776f726b666c6f772e696e7075742e746578747d227d7d2c2262223a7b226964223a2262222c226167656e745f6e616d65223a2265787472616374222c226e6578745f73746570223a6e756c6c2c22696e7075745f6d617070696e67223a7b2266726f6d223a22247b612e6f75747075742e6563686f2e746578747d227d7d7d7d7d', '{"text":"finished"}', 'success', true, '', 0, '{"outputs":{"a":{"agent":"extract","echo":{"text":"finished"},"processed_at":"2026-11-27T12:15:06.454446+00:00"},"b":{"agent":"extract","echo":{"from":"finished"},"processed_at":"2026-11-27T12:15:06.460008+00:00"}},"output":{"agent":"extract","echo":{"from":"finished"},"processed_at":"2026-11-27T12:15:06.460008+00:00"}}', NULL, 0, '2026-11-27 12:15:06.445823+00', '2026-11-27 12:15:06.45278+00', '2026-11-27 12:15:06.460844+00', 'agent_workflow');
INSERT INTO public.executions OVERRIDING SYSTEM VALUE VALUES (4, 'run-26d95078168bd848b40285bd', 'acct-37d0cb523995107e3dd0', NULL, 'a2s:sha256:711c185ac04290a3630f7ac07d616e61865aba33dd0cc178db60e134e11387c4', '\x7b226132735f72756e223a7b226e616d657370616365223a2266696e616e6365222c226964223a22417070726f7665222c2276657273696f6e223a22312e322e30222c22636865636b73756d223a227368613235363a37313163313835616330343239306133363330663761633037643631366536313836356162613333646430636331373864623630653133346531313338376334227d7d', '{"amount":40}', 'waiting', false, '', 30000, '{"run_id":"run-26d95078168bd848b40285bd","status":"waiting","outputs":{"verdict":null},"tasks":{},"errors":[],"pending":{"task":"judge","type":"prompt","prompt":"Approve a refund of 40 EUR?","inputs":{"amount":40},"expected_output":{"properties":{"verdict":{"enum":["yes","no"],"type":"string"}},"required":["verdict"],"type":"object"}},"duration_ms":1}', '[]', 0, '2026-11-27 12:15:06.470329+00', '2026-11-27 12:15:06.470329+00', NULL, 'a2s');
INSERT INTO public.executions OVERRIDING SYSTEM VALUE VALUES (5, 'exec-c3e5a2b4e436eaf09d5be9e0', 'acct-37d0cb523995107e3dd0', 'upgrade-parked', 'sha256:13f0fc6269e59ceade8273fad325db6491bb3d84825433dbab8cf1e2bdf7dac6', '\x7b2274797065223a226f7065726174696f6e557064617465222c226f7065726174696f6e4964223a22646f75626c65222c226f7065726174696f6e223a7b225472616e73666f726d44617461223a7b22696e70757450617468223a222f696e7075742f6e756d73222c227472616e73666f726d223a226d6170222c22636f6e666967223a7b2265787072657373696f6e223a226974656d202a2032227d2c226f757470757450617468223a222f776f726b666c6f772f646f75626c6564227d7d7d0a7b2274797065223a226f7065726174696f6e557064617465222c226f7065726174696f6e4964223a2277616974222c226f7065726174696f6e223a7b2257616974223a7b226475726174696f6e223a31303030307d7d7d0a7b2274797065223a22626567696e457865637574696f6e222c22657865637574696f6e4964223a22757067726164652d7061726b6564222c226f7065726174696f6e4f72646572223a5b2277616974222c22646f75626c65225d7d0a', '{"nums":[3,4]}', 'running', true, '', 3600000, NULL, NULL, 3, '2026-11-27 12:15:06.475259+00', '2026-11-27 12:15:06.509964+00', NULL, 'a2e');
INSERT INTO public.executions OVERRIDING SYSTEM VALUE VALUES (6, 'awf-2504348872e32e98d3ae44f1', 'acct-37d0cb523995107e3dd0', NULL, 'agentflow:9a34ab9ffbe0e7f32a74c7f4da2e22e9789f741233bc993eea41f8cd4d8ead08', '\x7b226167656e745f776f726b666c6f77223a7b22776f726b666c6f775f6964223a2277662d63222c226e616d65223a2263616e63656c6c61626c65222c2276657273696f6e223a22312e302e30222c2273746172745f73746570223a2261222c227374657073223a7b2261223a7b226964223a2261222c226167656e745f6e616d65223a2265787472616374222c226e6578745f73746570223a2262222c22696e7075745f6d617070696e67223a7b2274657874223a22247b776f726b666c6f772e696e7075742e746578747d227d7d2c2262223a7b226964223a2262222c226167656e745f6e616d65223a227374616c6c222c226e6578745f73746570223a6e756c6c2c22696e7075745f6d617070696e67223a7b2266726f6d223a22247b612e6f75747075742e6563686f2e746578747d227d7d7d7d7d', '{"text":"hello"}', 'running', true, '', 0, NULL, NULL, 0, '2026-11-27 12:15:06.541725+00', '2026-11-27 12:15:06.549665+00', NULL, 'agent_workflow');


--
-- Data for Name: knowledge_bases; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: kv; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.kv VALUES ('acct-37d0cb523995107e3dd0', 'a2s/finance/Approve/verdict', '"refused"', '2026-11-27 12:15:06.442867+00');


--
-- Data for Name: kv_usage; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.kv_usage VALUES ('acct-37d0cb523995107e3dd0', 1);


--
-- Data for Name: mcp_servers; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: queue_groups; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.queue_groups VALUES ('executions', 'acct-37d0cb523995107e3dd0', 1);
INSERT INTO public.queue_groups VALUES ('agent-workflows', '', 4);


--
-- Data for Name: queue_items; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.queue_items OVERRIDING SYSTEM VALUE VALUES (3, 'executions', 'exec-c3e5a2b4e436eaf09d5be9e0', '\x616363742d3337643063623532333939353130376533646430', 1, '2026-11-27 12:15:06.475996+00', '2026-11-27 12:15:16.514101+00', NULL, NULL, NULL, 'acct-37d0cb523995107e3dd0');
INSERT INTO public.queue_items OVERRIDING SYSTEM VALUE VALUES (5, 'agent-workflows', 'awf-2504348872e32e98d3ae44f1/b', '\x7b226163636f756e745f6964223a22616363742d3337643063623532333939353130376533646430222c2272756e5f6964223a226177662d323530343334383837326533326539386433616534346631222c22737465705f6964223a2262227d', 1, '2026-11-27 12:15:06.559796+00', '2026-11-27 12:17:06.563302+00', 'vm:31760', '1652f74d-226a-4a28-adcc-de9e59ebec04', NULL, '');


--
-- Data for Name: rate_counters; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.rate_counters VALUES ('acct-37d0cb523995107e3dd0', 'requests_per_minute', '2026-11-27 12:15:00+00', '2026-11-27 12:16:00+00', 13);
INSERT INTO public.rate_counters VALUES ('acct-37d0cb523995107e3dd0', 'requests_per_hour', '2026-11-27 12:00:00+00', '2026-11-27 13:00:00+00', 13);
INSERT INTO public.rate_counters VALUES ('acct-37d0cb523995107e3dd0', 'requests_per_day', '2026-11-27 00:00:00+00', '2026-11-28 00:00:00+00', 13);


--
-- Data for Name: rate_slots; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations VALUES (1, '0001_init.sql', '2026-11-27 12:15:06.075153+00');
INSERT INTO public.schema_migrations VALUES (2, '0002_queue.sql', '2026-11-27 12:15:06.082197+00');
INSERT INTO public.schema_migrations VALUES (3, '0003_mcp_servers.sql', '2026-11-27 12:15:06.087243+00');
INSERT INTO public.schema_migrations VALUES (4, '0004_capabilities.sql', '2026-11-27 12:15:06.095381+00');
INSERT INTO public.schema_migrations VALUES (5, '0005_knowledge_bases.sql', '2026-11-27 12:15:06.098954+00');
INSERT INTO public.schema_migrations VALUES (6, '0006_agents.sql', '2026-11-27 12:15:06.102387+00');
INSERT INTO public.schema_migrations VALUES (7, '0007_shared.sql', '2026-11-27 12:15:06.116784+00');
INSERT INTO public.schema_migrations VALUES (8, '0008_execution_kind.sql', '2026-11-27 12:15:06.119493+00');
INSERT INTO public.schema_migrations VALUES (9, '0009_unfinished_kind.sql', '2026-11-27 12:15:06.121278+00');
INSERT INTO public.schema_migrations VALUES (10, '0010_queue_expiry.sql', '2026-11-27 12:15:06.123116+00');
INSERT INTO public.schema_migrations VALUES (11, '0011_discovery_usage.sql', '2026-11-27 12:15:06.127482+00');
INSERT INTO public.schema_migrations VALUES (12, '0012_discovery_usage_account.sql', '2026-11-27 12:15:06.129048+00');
INSERT INTO public.schema_migrations VALUES (13, '0013_queue_groups.sql', '2026-11-27 12:15:06.134425+00');
INSERT INTO public.schema_migrations VALUES (14, '0014_credential_hosts.sql', '2026-11-27 12:15:06.135242+00');


--
-- Data for Name: scoped_value_usage; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: scoped_values; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: settings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.settings VALUES ('keys.pepper_probe', '\x7b226b6579223a22736c6b5f34686934706c6f6871633470695f3577706c74326b757175737a6c797735616b3573756d6163373565667467326e65756f377871786934636c626d6b756d6a35776173367779657579222c226964223a2234686934706c6f687163347069222c2268617368223a22553438725075656e304c62636d5a436f7863476a52702f4c387576304b4f6875395056475357416646416b3d227d', '2026-11-27 12:15:06.140794+00');
INSERT INTO public.settings VALUES ('keys.vault_master_key_id', '\x37643532653139333337626263643263', '2026-11-27 12:15:06.143112+00');


--
-- Name: audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_id_seq', 17, true);


--
-- Name: capability_versions_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.capability_versions_seq_seq', 1, true);


--
-- Name: executions_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.executions_seq_seq', 6, true);


--
-- Name: queue_items_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.queue_items_seq_seq', 5, true);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: agents agents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_pkey PRIMARY KEY (name);


--
-- Name: api_keys api_keys_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_hash_key UNIQUE (hash);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: audit audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit
    ADD CONSTRAINT audit_pkey PRIMARY KEY (id);


--
-- Name: capabilities capabilities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.capabilities
    ADD CONSTRAINT capabilities_pkey PRIMARY KEY (namespace, id);


--
-- Name: capability_versions capability_versions_namespace_id_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.capability_versions
    ADD CONSTRAINT capability_versions_namespace_id_version_key UNIQUE (namespace, id, version);


--
-- Name: capability_versions capability_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.capability_versions
    ADD CONSTRAINT capability_versions_pkey PRIMARY KEY (seq);


--
-- Name: checkpoints checkpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.checkpoints
    ADD CONSTRAINT checkpoints_pkey PRIMARY KEY (execution_id);


--
-- Name: credentials credentials_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_pkey PRIMARY KEY (id);


--
-- Name: discovery_usage discovery_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.discovery_usage
    ADD CONSTRAINT discovery_usage_pkey PRIMARY KEY (kind, entry_id, term, account_id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (execution_id, seq);


--
-- Name: executions executions_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.executions
    ADD CONSTRAINT executions_id_key UNIQUE (id);


--
-- Name: executions executions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.executions
    ADD CONSTRAINT executions_pkey PRIMARY KEY (seq);


--
-- Name: knowledge_bases knowledge_bases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.knowledge_bases
    ADD CONSTRAINT knowledge_bases_pkey PRIMARY KEY (name);


--
-- Name: kv kv_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kv
    ADD CONSTRAINT kv_pkey PRIMARY KEY (account_id, key);


--
-- Name: kv_usage kv_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kv_usage
    ADD CONSTRAINT kv_usage_pkey PRIMARY KEY (account_id);


--
-- Name: mcp_servers mcp_servers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_servers
    ADD CONSTRAINT mcp_servers_pkey PRIMARY KEY (account_id, name);


--
-- Name: queue_groups queue_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.queue_groups
    ADD CONSTRAINT queue_groups_pkey PRIMARY KEY (topic, grp);


--
-- Name: queue_items queue_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.queue_items
    ADD CONSTRAINT queue_items_pkey PRIMARY KEY (seq);


--
-- Name: queue_items queue_items_topic_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.queue_items
    ADD CONSTRAINT queue_items_topic_id_key UNIQUE (topic, id);


--
-- Name: rate_counters rate_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rate_counters
    ADD CONSTRAINT rate_counters_pkey PRIMARY KEY (account_id, kind, window_start);


--
-- Name: rate_slots rate_slots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rate_slots
    ADD CONSTRAINT rate_slots_pkey PRIMARY KEY (slot_id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: scoped_value_usage scoped_value_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.scoped_value_usage
    ADD CONSTRAINT scoped_value_usage_pkey PRIMARY KEY (area, account_id, scope);


--
-- Name: scoped_values scoped_values_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.scoped_values
    ADD CONSTRAINT scoped_values_pkey PRIMARY KEY (area, account_id, scope, key);


--
-- Name: settings settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (name);


--
-- Name: api_keys_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_account ON public.api_keys USING btree (account_id, created_at);


--
-- Name: audit_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_account ON public.audit USING btree (account_id, id);


--
-- Name: audit_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_time ON public.audit USING btree ("time");


--
-- Name: discovery_usage_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX discovery_usage_account ON public.discovery_usage USING btree (account_id);


--
-- Name: discovery_usage_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX discovery_usage_at ON public.discovery_usage USING btree (at);


--
-- Name: executions_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX executions_account ON public.executions USING btree (account_id, seq);


--
-- Name: executions_account_kind; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX executions_account_kind ON public.executions USING btree (account_id, kind, seq);


--
-- Name: executions_client; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX executions_client ON public.executions USING btree (account_id, client_id) WHERE (client_id IS NOT NULL);


--
-- Name: executions_unfinished_kind; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX executions_unfinished_kind ON public.executions USING btree (kind, seq) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text, 'waiting'::text]));


--
-- Name: queue_groups_served; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX queue_groups_served ON public.queue_groups USING btree (topic, served);


--
-- Name: queue_items_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX queue_items_due ON public.queue_items USING btree (topic, visible_at, seq);


--
-- Name: queue_items_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX queue_items_expiry ON public.queue_items USING btree (expires_at) WHERE (expires_at IS NOT NULL);


--
-- Name: queue_items_group_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX queue_items_group_due ON public.queue_items USING btree (topic, grp, visible_at, seq);


--
-- Name: rate_counters_end; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX rate_counters_end ON public.rate_counters USING btree (window_end);


--
-- Name: rate_slots_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX rate_slots_account ON public.rate_slots USING btree (account_id, expires_at);


--
-- Name: scoped_values_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX scoped_values_expires ON public.scoped_values USING btree (expires_at) WHERE (expires_at IS NOT NULL);


--
-- Name: api_keys api_keys_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: capability_versions capability_versions_namespace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.capability_versions
    ADD CONSTRAINT capability_versions_namespace_id_fkey FOREIGN KEY (namespace, id) REFERENCES public.capabilities(namespace, id);


--
-- Name: checkpoints checkpoints_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.checkpoints
    ADD CONSTRAINT checkpoints_execution_id_fkey FOREIGN KEY (execution_id) REFERENCES public.executions(id);


--
-- Name: discovery_usage discovery_usage_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.discovery_usage
    ADD CONSTRAINT discovery_usage_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: events events_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_execution_id_fkey FOREIGN KEY (execution_id) REFERENCES public.executions(id);


--
-- Name: executions executions_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.executions
    ADD CONSTRAINT executions_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: kv kv_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kv
    ADD CONSTRAINT kv_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: kv_usage kv_usage_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kv_usage
    ADD CONSTRAINT kv_usage_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: mcp_servers mcp_servers_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_servers
    ADD CONSTRAINT mcp_servers_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: scoped_values scoped_values_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.scoped_values
    ADD CONSTRAINT scoped_values_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- PostgreSQL database dump complete
--



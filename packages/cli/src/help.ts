const CONNECTION = `Connection (every command):
  --url URL          Stackgate's address, e.g. https://stackgate.example.com
                     (default: $STACKGATE_URL)
  --api-key KEY      An API key made in Stackgate under Settings → API keys
                     (default: $STACKGATE_API_KEY; prefer the variable: flags show in process lists)
  --json             Print one JSON document on stdout instead of text
  -h, --help         This help`;

const EXIT_CODES = `Exit codes:
  0    success (with --detach: the run was accepted)
  1    the deploy failed (Komodo's reason is printed), it did not stay up (unstable, with
       --wait-stable), a scan gate found findings, or Stackgate could not be reached (a
       wrong STACKGATE_URL fails within seconds)
  2    usage error, no such stack, or Stackgate refused the key (401) or the action (403);
       nothing was deployed
  3    the deploy did not finish within --timeout (it goes on in Stackgate)
  130  stopped by Ctrl-C (SIGINT), 143 by SIGTERM: the run goes on in Stackgate`;

export const HELP: Record<string, string> = {
  main: `stackgate — deploy Komodo stacks through Stackgate from a terminal or a CI pipeline

Usage:
  stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--[no-]wait-stable] [--quiet]
                   [--detach] [--new-run] [--json]
  stackgate wait <run-id> [--timeout 15m] [--[no-]wait-stable] [--quiet] [--json]
  stackgate stacks [--json]
  stackgate history [--stack S] [--limit N] [--json]
  stackgate scans [--stack S] [--image I] [--fail-on critical|high] [--scan-wait 2m] [--json]
  stackgate version                      (also --version, -V)
  stackgate <command> --help

Stackgate sits in front of a Komodo Core: it deploys the stacks Komodo manages, records every
deploy in its history and scans the stacks' images. Ask its admin for its address and create an
API key under Settings → API keys, then:

  export STACKGATE_URL=https://stackgate.example.com
  export STACKGATE_API_KEY=sg_...        # a secret: keep it in your CI's secret store
  stackgate deploy web                   # pull the images of stack 'web' and redeploy it

${CONNECTION}

${EXIT_CODES}

Docs: docs/ci.md in the Stackgate repository (GitHub Action, GitLab CI template, curl).`,

  deploy: `stackgate deploy <stack> — run pull, redeploy or pull-redeploy on a stack and wait for the outcome

Usage:
  stackgate deploy <stack> [--action pull-redeploy] [--timeout 15m] [--[no-]wait-stable]
                   [--settle-seconds N] [--quiet] [--detach] [--new-run] [--json]

  <stack>            The stack's name as Komodo and Stackgate show it (see 'stackgate stacks')
  --action ACTION    pull           pull the stack's images; nothing restarts
                     redeploy       take the stack down, then deploy it again
                     pull-redeploy  pull, then redeploy (default)
  --timeout T        How long to wait for the outcome: 90s, 15m, 1h (default 15m), the settle
                     window included. On a timeout the deploy goes on in Stackgate; exit 3.
  --wait-stable      After a successful redeploy, keep following while Stackgate watches the
                     stack's services (its settle window, SETTLE_SECONDS: 60 s by default), and
                     exit 1 when they did not stay up ("web restarted 3 times"), 0 when stable.
                     The default when CI is set; --no-wait-stable ends when Komodo finished.
                     A pull, a failed deploy or a window of 0 s ends when Komodo finished.
  --settle-seconds N How long Stackgate watches the services after this redeploy, 0 to 600
                     (0: not watched); default Stackgate's SETTLE_SECONDS.
  -q, --quiet        Each of Komodo's stages by name and result only, without its output.
  --detach           Print the run's id (stdout) and address (stderr) once Stackgate accepted
                     it, and exit 0; 'stackgate wait <run-id>' follows it later.
  --idempotency-key K  The deploy's idempotency key (default $STACKGATE_IDEMPOTENCY_KEY; in
                     GitHub Actions and GitLab CI one made from the pipeline's identity: the
                     repository or project, the run or pipeline id, the job, stack and action).
                     A repeat with the same key attaches to the run it started, unless that run
                     failed or was interrupted: then it deploys again.
  --new-run          Deploy again on purpose: a new key, whatever a re-run of the job would use.
  --no-progress      Plain progress lines even on a terminal (also when CI is set).

How it works: it first checks what it can without deploying (the stack exists, the key may
run the action on it) and exits 2 when it cannot. It then starts the deploy (Prefer:
respond-async) under its idempotency key, so retrying after a lost answer (a proxy's 502/503/
504, a dropped connection; until --timeout, with backoff) never deploys twice, and a re-run of
the same CI job says "already deployed by run ..." instead of deploying again. A wrong address
fails within seconds, naming STACKGATE_URL: a host that does not resolve, a refused connection,
a TLS error, a web page or a 404 where the API should be. It then follows the run on
Stackgate's live event stream, reconnecting when a proxy cuts it, and reads the run now and
then, so a proxy's read time limit (nginx's 60 s, Cloudflare's 100 s) never ends the wait.
Progress goes to stderr: one redrawn line on a terminal (current step, elapsed time), plain
timestamped lines in CI logs; each of Komodo's stages (Compose Pull, Compose Up, ...) as it
ends, with its command and output (read from the run's log, so none is missed or printed
twice when the stream is cut). Ctrl-C (or SIGTERM) prints "stopped following run <id>; it goes
on: <address>" and exits 130 (143); the deploy goes on. The outcome goes to stdout; with
--json, one object:
  {"outcome":"succeeded|failed|unstable|timeout|detached|refused","success":true,
   "message":"...","stack":"web","action":"pull-redeploy","runId":"...","startedAt":"...",
   "finishedAt":"...","url":"...","attached":true,
   "settle":{"state":"stable","reason":null,"until":"..."},
   "failedStage":{"stage":"Compose Up","command":"...","stdout":"...","stderr":"...","success":false}}
("attached": an earlier attempt of the job had started the run; "settle": whether it stayed
up, where known; "failedStage": the stage that failed a failed deploy; errors carry
"exitCode" and what was known: stack, action, runId, url.)

The API key needs the right to run that action on that stack (a scoped key: the stack and the
action). It follows the runs it started whatever its scope's reads.

${CONNECTION}

${EXIT_CODES}`,

  wait: `stackgate wait <run-id> — follow a run to its end (one 'stackgate deploy --detach' started)

Usage:
  stackgate wait <run-id> [--timeout 15m] [--[no-]wait-stable] [--quiet] [--no-progress] [--json]

  <run-id>           The run's id, as 'deploy --detach' or 'deploy --json' printed it
  --timeout T        How long to wait for the outcome (default 15m); then exit 3
  --wait-stable      Follow a successful redeploy until its settle window ends, as deploy does
                     (the default when CI is set; --no-wait-stable: end when Komodo finished)
  -q, --quiet        Each stage by name and result only

Prints the run's stages so far (from its log), then each as it ends, and its outcome as
'stackgate deploy' does, with the same exit codes (0 succeeded, 1 failed or unstable,
3 timed out, 130/143 stopped). An unknown run, or one the key may not follow, exits 2.

${CONNECTION}

${EXIT_CODES}`,

  stacks: `stackgate stacks — list the stacks, live from Komodo

Usage:
  stackgate stacks [--json]

Prints each stack's name, state, status and images ('*' marks an image with an update
available). A scoped API key sees only its stacks. --json prints {"stacks": [...]} as the API
answers it (GET /api/v0/stacks).

${CONNECTION}`,

  history: `stackgate history — the latest finished deploys, newest first

Usage:
  stackgate history [--stack S] [--limit N] [--json]

  --stack S          Only the deploys of this stack
  --limit N          How many, 1 to 100 (default 20)

Prints when, stack, action, outcome, who (a person, or 'API Key: <name>') and the message.
--json prints {"history": [...], "nextCursor": ...} as the API answers it (GET /api/v0/history).

${CONNECTION}`,

  scans: `stackgate scans — the latest vulnerability scan of the stacks' images, and a gate on them

Usage:
  stackgate scans [--stack S] [--image I] [--fail-on critical|high] [--scan-wait 2m] [--json]

  --stack S          Only the images stack S uses (as Komodo reports them now)
  --image I          Only this image reference, e.g. ghcr.io/acme/web:1.4, with its findings
  --fail-on LEVEL    Exit 1 when a listed image has findings of LEVEL or worse:
                     critical: any critical finding; high: any critical or high finding.
                     Use it as a gate before 'stackgate deploy':
                       stackgate scans --stack web --fail-on critical && stackgate deploy web
  --scan-wait T      With --fail-on: how long to wait for the first scan of an image never
                     scanned yet (e.g. a new tag; listing it queues its scan). Default 2m; 0: no wait.

Without --stack and --image every image the key may see is listed (a scoped key: its
stacks' images). The gate reads the latest successful scan of each image, which Stackgate
makes in the background (Trivy). An image still without a successful scan after --scan-wait
is named ("Not judged") and does not fail the gate.
--json prints {"images": [...], "failOn": ..., "failing": [...]}.

${CONNECTION}

Exit codes:
  0  no listed image has findings at or above --fail-on (or no --fail-on)
  1  some image does (each is named), or Stackgate could not be reached
  2  usage error, unknown stack or image, or Stackgate refused the key (401/403)`,
};

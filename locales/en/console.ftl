### The operator's console that talon serve shows at /console: its pages,
### buttons and refusals. Tool names, reasons, plans and paths are shown as
### talon has them and are not translated here.

## Frame

console-skip = Skip to the page
console-brand = operator console
console-nav-label = Pages
console-nav-approvals = Approvals
console-nav-pending = { $count } waiting
console-nav-calls = Calls
console-nav-receipts = Receipts
console-nav-catalog = Catalog
console-nav-policy = Policy
console-nav-plugins = Plugins
console-nav-sandbox = Sandbox
console-lang-label = Language

## Words used on several pages

console-tier-low = low
console-tier-medium = medium
console-tier-high = high
console-tier-label = tier { $tier }
console-tier-per-call = per call (from { $tier })
console-decision-allow = allow
console-decision-ask = ask
console-decision-deny = deny
console-outcome-success = succeeded
console-outcome-failed = failed
console-outcome-denied = denied
console-outcome-cancelled = cancelled
console-outcome-rejected = arguments refused
console-allowed-auto = allowed by policy
console-allowed-user = approved by a person
console-allowed-always = approved earlier in the session
console-duration-ms = { $n } ms
console-duration-s = { $n } s
console-duration-min = { $n } min { $s } s
console-duration-h = { $n } h { $min } min
console-active = active
console-inactive = inactive
console-yes = yes
console-no = no
console-any = any
console-choose = choose a tool
console-filter = Filter
console-search = Search
console-show = Show
console-core = core

console-col-time = Time
console-col-session = Session
console-col-tool = Tool
console-col-tier = Tier
console-col-decision = Decision
console-col-outcome = Outcome
console-col-duration = Duration
console-col-receipt = Receipt
console-col-position = Chain:seq
console-col-allowed-by = Allowed by
console-col-signature = Signature
console-col-chain = Chain
console-col-verification = Verification
console-col-actions = Actions
console-col-records = Records
console-col-seqs = Seqs
console-col-head = Head
console-col-source = Source
console-col-description = Description
console-col-verdict = Verdict
console-col-protection = Protection
console-col-action = What the child tried
console-col-without = Without the sandbox
console-col-with = With it

console-field-attribution = Source
console-field-via = Through
console-field-session = Session
console-field-profile = Profile · channel
console-field-profile-only = Profile
console-field-channel = Channel
console-field-since = Waiting since
console-field-id = Id
console-field-always-ask = always_ask
console-always-ask = a person decides every call of this tool, so "always" is not offered
console-field-binary = Program
console-field-dir = Directory
console-field-env = Environment
console-env-none = no variables passed on
console-field-sandbox = Sandbox
console-field-argv = Command
console-field-args-json = Arguments (JSON)
console-field-from = From (UTC)
console-field-until = Until (UTC)
console-field-key = key
console-field-args-sha = Arguments SHA-256
console-field-result-sha = Result SHA-256
console-field-prev = Previous record's hash
console-field-token = Token
console-field-delegation = Delegation
console-field-rotation = Key rotation
console-field-torn = Torn tails noted
console-field-mode = mode
console-field-trust = Consent
console-field-signature = Publisher signature
console-field-enabled = Enabled
console-field-tier-floor = Tier floor
console-field-tools = Tools
console-reasons = Reasons
console-plan = Plan
console-args = Arguments (secrets hidden)
console-waiting = waiting
console-recent-calls = Recent calls of this session

## Approvals

console-approvals-title = Approvals
console-approvals-intro = Calls that wait for a person. Read what each would run, then answer: once, for the rest of its session, or not at all. New ones appear here as they arrive.
console-approvals-empty = Nothing is waiting for an answer.
console-approve = Approve once
console-always = Always, this session
console-permanently = Permanently
console-deny = Deny
console-notify = Notify me of new approvals
console-notify-title = talon: a call waits for approval
console-announce-added = New approval waiting: { $tool }
console-answers-off = This page shows the waiting calls but takes no answers: { $reason }. A tool process could reach this port and answer its own calls. Set a token ([serve] token or $TALON_SERVE_TOKEN) and restart talon serve, or keep this port out of [sandbox] allow_connect_ports; until then answer with talon approvals in a terminal.
console-answers-off-short = Answers are off on this console; answer with talon approvals.
console-left-approved = { $tool } was approved.
console-left-always = { $tool } was approved for the rest of its session.
console-left-denied = { $tool } was denied.
console-left-withdrawn = { $tool } stopped waiting: it timed out or its caller went away.

## Calls

console-calls-title = Calls
console-calls-intro = Every call of this server's sessions since it started, newest first, with the policy's decision and how it ended. New calls appear at the top as they finish.
console-calls-filter = Filter the calls
console-calls-count = { $count } calls
console-calls-empty = No call matches.

## Receipts

console-receipts-title = Receipts
console-receipts-intro = Signed records of the calls that ran, newest first, every chain of this data directory. Each signature is checked against the store's public key as the page is drawn.
console-receipts-search = Search the receipts
console-receipts-pattern-help = Tool and session take an exact name or a regular expression (RE2 syntax, matching the whole name), up to 200 characters. Times are UTC.
console-receipts-off = Receipts are off for this server ([receipts] enabled = false).
console-receipts-empty = No receipt matches.
console-receipts-none-yet = None of the { $count } receipts searched so far matches.
console-receipts-truncated = Searched { $count } receipts.
console-receipts-continue = Search further back
console-receipts-older = Older receipts
console-receipts-damaged = Some lines of the log are not receipts: { $error }
console-receipts-chains = Chains
console-sig-ok = signature verified
console-sig-bad = signature does not verify
console-sig-unknown-key = signed by a key the store does not list
console-chain-not-verified = not verified from this page yet
console-chain-verified = verified at { $time }: { $count } records
console-chain-failed = verification failed at { $time }
console-verify-chain = Verify this chain
console-verify-all = Verify every chain
console-export-chain = Export
console-export-all = Export every receipt (JSONL)
console-export-key = Public key
console-export-help = An export holds the records exactly as stored; with the public key, talon receipts verify FILE --pubkey KEY checks it anywhere.

console-receipt-title = Receipt { $chain }:{ $seq }
console-receipt-verified = Verified: the signature holds and the record links to its neighbours in the chain.
console-receipt-not-verified = Not verified: see what failed below.
console-receipt-record = Record
console-receipt-json = The record as stored
console-position = seq { $seq } of chain { $chain }
console-link-first = first record of its chain
console-link-prev-ok = links to seq { $seq } before it
console-link-prev-bad = does not link to seq { $seq } before it
console-link-prev-missing = the record before it cannot be read
console-link-next-ok = seq { $seq } after it links to it
console-link-next-bad = seq { $seq } after it does not link to it
console-link-head = newest record of its chain
console-link-open = open
console-rounds = { $count } rounds
console-rotation = first record of a new key, after { $from }
console-back-receipts = Back to the receipts

console-verify-title = Verification
console-verify-ok = Verified: { $count } records, every signature and link.
console-verify-failed = Verification failed.
console-verify-what = { $chain }, checked at { $time }.
console-all-chains = every chain
console-verify-chain-ok = verified
console-verify-problem = seq { $seq }: { $reason }
console-verify-torn = torn tail in { $segment }, noted by seq { $seq }
console-verify-keys = Signed by keys:

## Catalog and policy

console-catalog-title = Catalog
console-catalog-intro = The tools this server offers, as a caller with a given profile and channel sees them. This server serves the { $surface } surface.
console-catalog-view = Choose the view
console-catalog-caption = { $count } tools for profile { $profile } on channel { $channel }
console-catalog-core = Core tools of the chat surface: { $chat }. Of the code surface: { $code }.

console-policy-title = Policy
console-policy-intro = What policy would decide for a call, without running it or asking anyone: the tier, the reasons, the plan and the decision.
console-explain = Explain
console-policy-result = Decision
console-policy-schema = The arguments do not fit the tool's schema: { $error }

## Plugins

console-plugins-title = Plugins
console-plugins-intro = Installed plugins, whether the operator trusts them, and what they are granted. Nothing here runs a plugin.
console-plugins-empty = No plugin is installed.
console-plugin-loads = Loads.
console-plugin-refused = Not loaded:
console-trust-none = not trusted
console-trust-current = trusted
console-trust-stale = changed since it was trusted
console-not-listed = not listed in [[plugins.entries]]
console-grant-hosts = Hosts
console-grant-read = Reads
console-grant-write = Writes
console-grant-secrets = Secrets
console-grant-config = Config keys

## Sandbox

console-sandbox-title = Sandbox
console-sandbox-mechanism = Confinement
console-sandbox-abi = Landlock ABI
console-sandbox-filesystem = Filesystem
console-sandbox-connect = TCP connect
console-sandbox-bind = TCP bind
console-sandbox-scope = Scoping
console-sandbox-privileges = No privileges
console-sandbox-console = This console
console-sandbox-console-open = tool processes could reach it ({ $reason }), so without a token it takes no answers
console-sandbox-console-closed = tool processes cannot reach its port
console-sandbox-run = Run the check
console-sandbox-run-help = Starts a few child processes that each try a forbidden action, with and without the sandbox, as talon sandbox check does. It takes a few seconds.
console-sandbox-check = Check of { $time }
console-sandbox-check-ok = Every protection held.
console-sandbox-check-failed = A protection did not hold.
console-proof-ok = ok
console-proof-failed = failed
console-want-denied = (should be denied)
console-want-allowed = (should be allowed)

## Sign-in

console-login-title = Sign in
console-login-intro = This server requires its bearer token. Enter it once; the browser keeps proof of it in a cookie for as long as the browser session and this server run.
console-login-token = Token
console-login-submit = Sign in
console-login-wrong = That is not the token of this server.

## Refusals. Each says what happened; nothing was changed.

console-error-title = Refused ({ $status })
console-error-nothing-changed = Nothing was changed ({ $status } { $text }).
console-back-approvals = Back to the approvals
console-error-not-found = There is no console page at { $path }.
console-error-method = The console does not accept { $method } here.
console-error-sign-in = Sign in first: this server requires its token.
console-error-form = The form could not be read; reload the page and try again.
console-error-origin = Refused: this request did not come from a page of this console. Open the console at its own address and use its buttons.
console-error-csrf-missing = Refused: the request carries no form token of this console. Reload the page and try again.
console-error-csrf-stale = Refused: the page is older than this server or a day old, so its form token has expired. Reload the page and answer again.
console-error-approval-id = "{ $id }" is not an approval id; ids are 12 letters and digits, as talon approvals list shows them.
console-error-approval-unknown = No call waits under { $id }. It may have been answered or timed out before this server last started.
console-error-approval-answered = { $tool } ({ $id }) was already answered ({ $answer }) at { $time }.
console-error-approval-withdrawn = { $tool } ({ $id }) is no longer waiting: it timed out or its caller went away at { $time }.
console-error-answers-off = This console takes no answers: { $reason }. Set a token and restart talon serve, or answer with talon approvals in a terminal.
console-error-always-ask = { $tool } is in always_ask: a person decides every call, so "always" is not an answer for it.
console-error-permanently = Permanent answers are not available in this talon.
console-error-answer = "{ $answer }" is not an answer; use the page's buttons.
console-error-stream = This server cannot stream events to the page.
console-error-pattern-long = The { $field } pattern is longer than { $max } characters.
console-error-pattern = The { $field } pattern is not a regular expression: { $error }
console-error-time = The { $field } time "{ $value }" is not a date and time; use 2026-03-01T12:00 (UTC).
console-error-range = The range ends before it starts: make "until" later than "from".
console-error-cursor = That page of receipts does not exist; start again from the newest.
console-error-receipt-id = "{ $id }" is not a receipt id; ids are 26 characters long, as the receipts list shows them.
console-error-receipt-unknown = No receipt has the id { $id }.
console-error-chain = There is no chain "{ $chain }" in this store.
console-error-verify-busy = A verification is already running; try again when it ends.
console-error-no-key = The store has no public key file yet.
console-error-args-long = The arguments are longer than { $max } bytes.
console-error-args-json = The arguments are not JSON: write an object such as {"{"}"path": "notes.txt"{"}"}.
console-error-no-check = This server cannot run the sandbox check from here; run talon sandbox check in a terminal.
console-error-check-busy = A sandbox check is already running; try again when it ends.

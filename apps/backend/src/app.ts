import { auditProcedures } from "./audit/procedures.ts";
import { createAuditService } from "./audit/service.ts";
import { connectionProcedures } from "./connection/procedures.ts";
import { createConnectionService } from "./connection/service.ts";
import { openCluster } from "./db/cluster.ts";
import { openDatabase } from "./db/database.ts";
import { deployProcedures } from "./deploy/procedures.ts";
import { createRunStore } from "./deploy/runs.ts";
import { createDeployService } from "./deploy/service.ts";
import { createSettleWatch } from "./deploy/settle.ts";
import { createDeployEventBus } from "./events/bus.ts";
import { publishKomodoRuns } from "./events/komodo-runs.ts";
import { eventProcedures } from "./events/procedures.ts";
import { DEPLOY_EVENTS_PATH, deployEventStream } from "./events/sse.ts";
import { historyProcedures } from "./history/procedures.ts";
import { createHistoryService } from "./history/service.ts";
import { createHttpApp } from "./http.ts";
import { createAccessWatch } from "./identity/access-watch.ts";
import { apiKeyProcedures } from "./identity/apikeys/procedures.ts";
import { createApiKeyService } from "./identity/apikeys/service.ts";
import { createAuthenticator } from "./identity/authenticate.ts";
import { invitationProcedures, meProcedures, userProcedures } from "./identity/people/procedures.ts";
import { createPeopleService } from "./identity/people/service.ts";
import { createAuth, passwordsOf } from "./identity/sessions/better-auth.ts";
import { createFirstPasswordStore } from "./identity/sessions/first-password.ts";
import { seedAdmin } from "./identity/sessions/seed-admin.ts";
import { signInOptionsOf } from "./identity/sso/options.ts";
import { createSingleSignOn } from "./identity/sso/single-sign-on.ts";
import { createImplementer } from "./implementer.ts";
import { metricsEndpoint } from "./metrics/endpoint.ts";
import { createMetrics } from "./metrics/metrics.ts";
import { notifyProcedures } from "./notify/procedures.ts";
import { createNotifyService } from "./notify/service.ts";
import { generateOpenApiDocument } from "./openapi.ts";
import { type Clock, systemClock } from "./platform/clock.ts";
import { type Config, resolveAuthSecret } from "./platform/config.ts";
import type { Logger } from "./platform/logger.ts";
import { createSecretBox } from "./platform/secret-box.ts";
import { createStackLanes } from "./platform/stack-lanes.ts";
import { readVersion } from "./platform/version.ts";
import { scanProcedures } from "./scans/procedures.ts";
import { createScanService } from "./scans/service.ts";
import { STACK_LIST_PATH, stackListRoute } from "./stacks/list-route.ts";
import { stackProcedures } from "./stacks/procedures.ts";
import { createStackService } from "./stacks/service.ts";

/** How soon a deploy cut off with its backend is recorded as interrupted by another (issue: within 30 s). */
const INTERRUPTED_CHECK_MS = 10_000;

/** Wires configuration, database, services and HTTP together; main.ts and the tests both start here. */
export async function createBackend({
  config,
  logger,
  clock = systemClock,
}: {
  config: Config;
  logger: Logger;
  clock?: Clock;
}) {
  const database = await openDatabase(config.database);
  // The other backends on the same database, if any (PostgreSQL): see db/cluster.ts.
  const cluster = await openCluster(config.database, logger);
  const { db } = database;
  const authSecret = resolveAuthSecret(config);
  const secretBox = createSecretBox(authSecret);
  const firstPassword = createFirstPasswordStore({ dataDir: config.dataDir, secretBox });
  const audit = createAuditService({ db, clock });
  const singleSignOn = config.singleSignOn
    ? createSingleSignOn({ config: config.singleSignOn, appUrl: config.appUrl, db, audit, logger, clock })
    : null;
  singleSignOn?.provider.start();
  const auth = createAuth({
    db,
    authAdapter: database.authAdapter,
    cluster,
    config,
    secret: authSecret,
    logger,
    clock,
    firstPassword,
    audit,
    singleSignOn,
  });
  const seeded = await seedAdmin(auth, config, firstPassword);

  const people = createPeopleService({
    db,
    passwords: passwordsOf(auth),
    audit,
    clock,
    appUrl: config.appUrl,
  });
  const apiKeys = createApiKeyService({ db, clock, audit });
  const connection = await createConnectionService({
    db,
    secretBox,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    logger,
    audit,
    cluster,
  });
  const notify = createNotifyService({
    db,
    secretBox,
    logger,
    clock,
    appUrl: config.appUrl,
    audit,
    cluster,
    connection,
    policy: {
      timeoutMs: config.alertTimeoutMs,
      delaysMs: config.alertRetryDelaysMs,
      windowMs: config.alertRetryWindowMs,
    },
    updateCheckIntervalMs: config.updateCheckIntervalMs,
  });
  await notify.start();
  const history = createHistoryService({ db, clock, logger, runner: cluster.id });
  const events = createDeployEventBus({ cluster, readLog: (runId) => history.logOf(runId) });
  const komodoRuns = publishKomodoRuns({
    connection,
    events,
    logger,
    staleAfterMs: config.deployTimeoutMs,
    leads: cluster.leads,
  });
  const lanes = createStackLanes({ cluster });
  const stacks = createStackService({ connection, lanes, audit, history });
  const scans = await createScanService({
    db,
    clock,
    logger,
    connection,
    stacks,
    trivy: config.trivy,
    sweep: config.sweep,
    cluster,
    onFinished: (finished, stacksUsing) => {
      metrics.scanFinished(finished);
      if (finished.outcome !== "done") return;
      return notify.imageScanned({
        image: finished.image,
        previous: finished.previous,
        vulnerabilities: finished.report.vulnerabilities,
        stacksUsing,
      });
    },
  });
  const metrics = createMetrics({ events, scans, connection });
  const settleWatch = createSettleWatch({ connection, clock, logger, everyMs: config.settle.checkEveryMs });
  const deploy = createDeployService({
    connection: metrics.timedConnection(connection),
    history,
    runs: createRunStore({ db, clock }),
    events,
    clock,
    logger,
    deployTimeoutMs: config.deployTimeoutMs,
    settleSeconds: config.settle.seconds,
    settleWatch,
    lanes,
    cluster,
  });
  // The bus is the one fan-out of deploy results: event streams, metrics, alerts, and scans
  // of a deployed stack's images. Runs from Komodo itself (source "komodo") are neither alerted nor
  // scanned; a mistyped stack name (Komodo has no such stack: nothing ran) pages nobody.
  events.observe((event) => {
    if (event.type === "finished") {
      const { run } = event;
      if (run.source !== "komodo" && run.failure !== "unknown-stack") void notify.deployFinished(run);
    }
    if (event.type === "settled" && event.run.settle?.state === "unstable")
      void notify.deployUnstable(event.run, event.run.settle.reason ?? "its services did not stay up");
  });
  events.observe((event) => {
    if (event.type === "finished" && event.run.success && event.run.source !== "komodo")
      void scans.queueStackImages(event.run.stack);
  });
  await deploy.recoverInterrupted();
  await deploy.resumeSettleWindows();
  const stopWatchingInterrupted = deploy.watchInterrupted(INTERRUPTED_CHECK_MS);
  // Start-up's writes are done: from here on a locked database is answered 503 within moments.
  database.serving();

  const authenticate = createAuthenticator({ auth, apiKeys });
  const access = createAccessWatch({ db, clock, logger });
  const os = createImplementer(authenticate);
  const router = os.router({
    apikeys: apiKeyProcedures(os, { apiKeys, clock }),
    connection: connectionProcedures(os, { connection }),
    notify: notifyProcedures(os, { notify }),
    stacks: stackProcedures(os, { stacks, deployTimeoutMs: config.deployTimeoutMs }),
    deploy: {
      ...deployProcedures(os, { deploy, connection }),
      events: eventProcedures(os, { events, access }),
    },
    history: historyProcedures(os, { history }),
    scans: scanProcedures(os, { scans }),
    me: meProcedures(os, { people }),
    users: userProcedures(os, { people }),
    invitations: invitationProcedures(os, { people, auth, passwordSignIn: config.passwordSignIn }),
    audit: auditProcedures(os, { audit }),
    signIn: { options: os.signIn.options.handler(() => signInOptionsOf(config, singleSignOn)) },
  });

  const app = createHttpApp({
    auth,
    router,
    metricsEndpoint: metricsEndpoint({ authenticate, metrics }),
    routesAhead: [
      { path: DEPLOY_EVENTS_PATH, handler: deployEventStream({ events, authenticate, access }) },
      { path: STACK_LIST_PATH, handler: stackListRoute({ stacks, authenticate }) },
    ],
    onRequest: metrics.httpRequest,
    appUrl: config.appUrl,
    logger,
    openApiDocument: () => generateOpenApiDocument(readVersion()),
  });

  scans.startSweeps();

  return {
    app,
    auth,
    seeded,
    /** The database the services use, for tests that read or break what is stored. */
    db,
    services: { connection, notify, history, events, stacks, deploy, scans, people, audit },
    /**
     * Stops in order: running deploys get `graceMs` to finish and are all recorded and
     * published, event streams end, running scans are recorded as interrupted, the connections to
     * Komodo and the database close.
     */
    async close({ graceMs = 0 }: { graceMs?: number } = {}) {
      stopWatchingInterrupted();
      settleWatch.close();
      access.close();
      await deploy.shutdown(graceMs);
      await notify.close();
      komodoRuns.close();
      events.close();
      await scans.close();
      metrics.close();
      connection.close();
      apiKeys.close();
      history.close();
      await cluster.close();
      await database.close();
    },
  };
}

export type Backend = Awaited<ReturnType<typeof createBackend>>;

import type { Severity, Vulnerability } from "../scans/trivy-report.ts";
import type { AlertEvent, AlertEventType } from "./alert.ts";
import { newFindings } from "./vulnerability-alert.ts";

export type AlertLanguage = "en" | "es";

/**
 * One alert in words, before any service's format: each kind lays out the same parts its own way
 * (Slack blocks, Discord embeds, an Adaptive Card, an email's text).
 */
export interface AlertMessage {
  event: AlertEventType;
  /** danger: failed; warning: unstable, vulnerabilities; success: succeeded; info: updates, tests. */
  tone: "danger" | "warning" | "success" | "info";
  /** How urgent, as ntfy counts (1-5). */
  urgency: 1 | 2 | 3 | 4 | 5;
  /** An emoji short code and labels, for services that tag messages (ntfy). */
  badge: string;
  labels: string[];
  title: string;
  /** The body as lines of plain text. */
  lines: string[];
  /** Short label-value pairs that structured formats show as fields. */
  facts: { label: string; value: string }[];
  link: { label: string; url: string };
  /** The stack (or stacks) the alert is about, for the delivery log. */
  stack: string | null;
  /** What happened, for machines (the webhook's `data`). */
  data: Record<string, unknown>;
}

/** How a channel narrows what it hears of vulnerabilities. */
export interface VulnerabilityChoice {
  vulnerabilitySeverity: Exclude<Severity, "unknown">;
  alertOnFirstScan: boolean;
}

const NAMED_FINDINGS = 5;
const WORST_IDS = 3;

const WORDS = {
  en: {
    failedTitle: (action: string, stack: string) => `Deploy failed: ${action} of ${stack}`,
    succeededTitle: (action: string, stack: string) => `Deployed: ${action} of ${stack}`,
    unstableTitle: (stack: string) => `Unstable after deploy: ${stack}`,
    ranSentence: (actor: string, action: string, stack: string) => `${actor} ran '${action}' on '${stack}'.`,
    komodoSaid: (reason: string) => `Komodo said: ${reason}`,
    unstableSentence: (reason: string) => `The stack did not settle after the deploy: ${reason}`,
    stack: "Stack",
    action: "Action",
    by: "By",
    outcome: "Outcome",
    failed: "failed",
    succeeded: "succeeded",
    unstable: "unstable",
    openRun: "Open in Stackgate",
    vulnerabilityTitle: (count: number, image: string) =>
      `${count} new ${count === 1 ? "vulnerability" : "vulnerabilities"} in ${image}`,
    usedBy: "Used by",
    image: "Image",
    newCounts: "New",
    worst: "Worst",
    finding: (finding: Vulnerability) =>
      `- ${finding.id} (${finding.severity}) in ${finding.package} ${finding.installedVersion}: ` +
      (finding.fixedVersion ? `fixed in ${finding.fixedVersion}` : "no fix yet"),
    more: (count: number) => `…and ${count} more`,
    severity: { critical: "critical", high: "high", medium: "medium", low: "low", unknown: "unknown" },
    openImage: "Open on the Security page",
    updateTitle: (stack: string) => `Update available: ${stack}`,
    updateSentence: (stack: string) => `Komodo reports newer images for '${stack}'. Redeploy to use them.`,
    services: "Services",
    openStack: "Open the stack",
    testTitle: "Stackgate test alert",
    testSentence: "If you can read this, Stackgate's alerts will reach this channel.",
    openStackgate: "Open Stackgate",
  },
  es: {
    failedTitle: (action: string, stack: string) => `Falló el despliegue: ${action} de ${stack}`,
    succeededTitle: (action: string, stack: string) => `Desplegado: ${action} de ${stack}`,
    unstableTitle: (stack: string) => `Inestable tras el despliegue: ${stack}`,
    ranSentence: (actor: string, action: string, stack: string) =>
      `${actor} ejecutó '${action}' en '${stack}'.`,
    komodoSaid: (reason: string) => `Komodo dijo: ${reason}`,
    unstableSentence: (reason: string) => `El stack no se estabilizó tras el despliegue: ${reason}`,
    stack: "Stack",
    action: "Acción",
    by: "Por",
    outcome: "Resultado",
    failed: "fallido",
    succeeded: "completado",
    unstable: "inestable",
    openRun: "Abrir en Stackgate",
    vulnerabilityTitle: (count: number, image: string) =>
      `${count} ${count === 1 ? "vulnerabilidad nueva" : "vulnerabilidades nuevas"} en ${image}`,
    usedBy: "La usan",
    image: "Imagen",
    newCounts: "Nuevas",
    worst: "Las peores",
    finding: (finding: Vulnerability) =>
      `- ${finding.id} (${WORDS.es.severity[finding.severity]}) en ${finding.package} ${finding.installedVersion}: ` +
      (finding.fixedVersion ? `corregida en ${finding.fixedVersion}` : "aún sin corrección"),
    more: (count: number) => `…y ${count} más`,
    severity: { critical: "crítica", high: "alta", medium: "media", low: "baja", unknown: "desconocida" },
    openImage: "Abrir en la página de Seguridad",
    updateTitle: (stack: string) => `Actualización disponible: ${stack}`,
    updateSentence: (stack: string) =>
      `Komodo indica imágenes más nuevas para '${stack}'. Vuelve a desplegarlo para usarlas.`,
    services: "Servicios",
    openStack: "Abrir el stack",
    testTitle: "Alerta de prueba de Stackgate",
    testSentence: "Si lees esto, las alertas de Stackgate llegarán a este canal.",
    openStackgate: "Abrir Stackgate",
  },
} as const;

const RANKED: Severity[] = ["critical", "high", "medium", "low", "unknown"];

/**
 * The alert one channel gets for an event, in its language; null when the event holds nothing for
 * it (no new vulnerability at its severity, a first scan it does not want, none of its stacks).
 */
export function renderAlert(
  event: AlertEvent,
  {
    language,
    appUrl,
    stacks,
    vulnerabilities,
  }: {
    language: AlertLanguage;
    appUrl: string;
    /** The event's stacks that the channel follows. */
    stacks: string[];
    vulnerabilities: VulnerabilityChoice;
  },
): AlertMessage | null {
  const words = WORDS[language];
  switch (event.type) {
    case "deploy.failed":
    case "deploy.succeeded":
    case "deploy.unstable": {
      const { run } = event;
      const failed = event.type === "deploy.failed";
      const unstable = event.type === "deploy.unstable";
      const message = "message" in run ? run.message : "";
      const title = unstable
        ? words.unstableTitle(run.stack)
        : failed
          ? words.failedTitle(run.action, run.stack)
          : words.succeededTitle(run.action, run.stack);
      const sentence = words.ranSentence(run.actorName, run.action, run.stack);
      const said = unstable ? words.unstableSentence(event.reason) : message ? words.komodoSaid(message) : "";
      return {
        event: event.type,
        tone: failed ? "danger" : unstable ? "warning" : "success",
        urgency: failed || unstable ? 4 : 3,
        badge: failed ? "rotating_light" : unstable ? "warning" : "white_check_mark",
        labels: ["stackgate", run.stack],
        title,
        lines: [said ? `${sentence} ${said}` : sentence],
        facts: [
          { label: words.stack, value: run.stack },
          { label: words.action, value: run.action },
          { label: words.by, value: run.actorName },
          {
            label: words.outcome,
            value: failed ? words.failed : unstable ? words.unstable : words.succeeded,
          },
        ],
        // The run's own page in the dashboard: its outcome, what changed, whether it stayed up, its output.
        link: { label: words.openRun, url: `${appUrl}/runs/${encodeURIComponent(run.id)}` },
        stack: run.stack,
        data: {
          run: {
            id: run.id,
            stack: run.stack,
            action: run.action,
            actor: run.actorName,
            via: run.via,
            startedAt: run.startedAt,
            ...("finishedAt" in run ? { finishedAt: run.finishedAt, success: run.success, message } : {}),
          },
          ...(unstable ? { reason: event.reason } : {}),
        },
      };
    }
    case "vulnerability.new": {
      if (event.previous === null && !vulnerabilities.alertOnFirstScan) return null;
      const findings = newFindings(
        event.previous,
        event.vulnerabilities,
        vulnerabilities.vulnerabilitySeverity,
      );
      if (findings.length === 0 || stacks.length === 0) return null;
      const counts = RANKED.map(
        (severity) => [severity, findings.filter((f) => f.severity === severity).length] as const,
      )
        .filter(([, count]) => count > 0)
        .map(([severity, count]) => `${count} ${words.severity[severity]}`)
        .join(", ");
      const worst = findings[0]!.severity;
      const more = findings.length > NAMED_FINDINGS ? [words.more(findings.length - NAMED_FINDINGS)] : [];
      return {
        event: event.type,
        tone: "warning",
        urgency: worst === "critical" ? 5 : 4,
        badge: "warning",
        labels: ["stackgate", worst],
        title: words.vulnerabilityTitle(findings.length, event.image),
        lines: [
          `${words.usedBy}: ${stacks.join(", ")}`,
          ...findings.slice(0, NAMED_FINDINGS).map(words.finding),
          ...more,
        ],
        facts: [
          { label: words.image, value: event.image },
          { label: words.newCounts, value: counts },
          {
            label: words.worst,
            value: findings
              .slice(0, WORST_IDS)
              .map((finding) => finding.id)
              .join(", "),
          },
        ],
        link: { label: words.openImage, url: `${appUrl}/security?image=${encodeURIComponent(event.image)}` },
        stack: stacks.join(", "),
        data: {
          image: event.image,
          stacks,
          counts: Object.fromEntries(
            RANKED.map((severity) => [severity, findings.filter((f) => f.severity === severity).length]),
          ),
          worst: findings
            .slice(0, WORST_IDS)
            .map(({ id, severity, package: pkg, installedVersion, fixedVersion }) => ({
              id,
              severity,
              package: pkg,
              installedVersion,
              fixedVersion,
            })),
        },
      };
    }
    case "update.available":
      return {
        event: event.type,
        tone: "info",
        urgency: 3,
        badge: "arrow_up",
        labels: ["stackgate", event.stack],
        title: words.updateTitle(event.stack),
        lines: [words.updateSentence(event.stack)],
        facts: [
          { label: words.stack, value: event.stack },
          {
            label: words.services,
            value: event.services.map(({ service, image }) => `${service} (${image})`).join(", "),
          },
        ],
        link: { label: words.openStack, url: `${appUrl}/stacks/${encodeURIComponent(event.stack)}` },
        stack: event.stack,
        data: { stack: event.stack, services: event.services },
      };
    case "test":
      return {
        event: "test",
        tone: "info",
        urgency: 3,
        badge: "white_check_mark",
        labels: ["stackgate"],
        title: words.testTitle,
        lines: [words.testSentence],
        facts: [],
        link: { label: words.openStackgate, url: appUrl },
        stack: null,
        data: {},
      };
  }
}

/** The message as plain text: its lines, its facts one a line, and the link. */
export function plainText(message: AlertMessage): string {
  return [
    message.lines.join("\n"),
    message.facts.map(({ label, value }) => `${label}: ${value}`).join("\n"),
    `${message.link.label}: ${message.link.url}`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

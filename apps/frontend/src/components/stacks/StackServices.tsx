import type { runningService } from "@stackgate/contract";
import { useMemo } from "react";
import type { z } from "zod";
import { useStackServicesQuery } from "../../lib/queries.ts";
import { useT } from "../I18nProvider.tsx";
import { DigestText } from "../runs/RunMarks.tsx";
import { runHref } from "../runs/run-model.ts";
import type { ImageScan } from "../security/scan-model.ts";
import { StatusMark } from "../ui/Badge.tsx";
import { Card } from "../ui/Card.tsx";
import { RelativeTime } from "../ui/RelativeTime.tsx";
import { Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "../ui/Table.tsx";
import { useHydrated } from "../useHydrated.ts";
import { describeContainer, type Stack } from "./model.ts";
import { ImageRef } from "./ServiceImage.tsx";
import { useStateLabel } from "./StackState.tsx";
import { UpdateMarker } from "./UpdateMarker.tsx";
import { ImageVulnerabilities, securityHref } from "./Vulnerabilities.tsx";

type RunningService = z.infer<typeof runningService>;

export interface StackServicesProps {
  stack: Stack;
  scans: Map<string, ImageScan>;
  scansUnavailable: boolean;
  /** What each service runs now, by its name; empty until known (or when Komodo could not say). */
  running: Map<string, RunningService>;
}

/**
 * Each service with its image, what it runs now (digest, container state, since which deploy), its
 * update marker and the image's vulnerabilities (details on Security).
 */
export function StackServices({ stack, ...props }: Omit<StackServicesProps, "running">) {
  const t = useT();
  const runningQuery = useStackServicesQuery(stack.name);
  const hydrated = useHydrated();
  const services = hydrated ? runningQuery.data?.services : undefined;
  const running = useMemo(() => new Map(services?.map((service) => [service.service, service])), [services]);
  const listProps = { stack, running, ...props };
  return (
    <Card title={t("stacks.detail.services", { count: stack.info.services.length })} flush>
      {stack.info.services.length === 0 ? (
        <p className="px-4 py-3 text-sm text-fg-muted">{t("stacks.noServices")}</p>
      ) : (
        <>
          <ServiceList {...listProps} />
          <ServiceTable {...listProps} />
        </>
      )}
    </Card>
  );
}

/** Wide screens: one row per service. */
function ServiceTable({ stack, scans, scansUnavailable, running }: StackServicesProps) {
  const t = useT();
  return (
    <TableContainer className="hidden rounded-none border-0 md:block">
      <Table
        aria-label={t("stacks.detail.servicesOf", { stack: stack.name })}
        className="min-w-[44rem] table-fixed"
      >
        <colgroup>
          <col className="w-40" />
          <col />
          <col className="w-28" />
          <col className="w-80" />
        </colgroup>
        <TableHead>
          <tr>
            <Th>{t("stacks.detail.service")}</Th>
            <Th>{t("stacks.detail.image")}</Th>
            <Th>{t("stacks.table.updates")}</Th>
            <Th>{t("stacks.table.vulnerabilities")}</Th>
          </tr>
        </TableHead>
        <TableBody>
          {stack.info.services.map((service) => (
            <Tr key={service.service}>
              <Td className="truncate font-medium" title={service.service}>
                <bdi>{service.service}</bdi>
              </Td>
              <Td className="overflow-hidden">
                <ImageRef service={service} stack={stack.name} />
                <RunningNow running={running.get(service.service)} />
              </Td>
              <Td>
                <UpdateMarker count={service.update_available ? 1 : 0} />
              </Td>
              <Td className="overflow-hidden">
                <ServiceScan image={service.image} scans={scans} scansUnavailable={scansUnavailable} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** Narrow screens: one block per service, nothing cut off sideways. */
function ServiceList({ stack, scans, scansUnavailable, running }: StackServicesProps) {
  return (
    <ul className="divide-y divide-line md:hidden">
      {stack.info.services.map((service) => (
        <li key={service.service} className="flex flex-col gap-1.5 px-4 py-2.5">
          <div className="flex items-center justify-between gap-2">
            <span className="truncate font-medium">
              <bdi>{service.service}</bdi>
            </span>
            <UpdateMarker count={service.update_available ? 1 : 0} />
          </div>
          <ImageRef service={service} stack={stack.name} />
          <RunningNow running={running.get(service.service)} />
          <ServiceScan image={service.image} scans={scans} scansUnavailable={scansUnavailable} />
        </li>
      ))}
    </ul>
  );
}

/** The image's findings and the way to their details on the Security page. */
function ServiceScan({
  image,
  scans,
  scansUnavailable,
}: { image: string } & Pick<StackServicesProps, "scans" | "scansUnavailable">) {
  const t = useT();
  return (
    <span className="flex items-center justify-between gap-2">
      <ImageVulnerabilities scan={scans.get(image)} unavailable={scansUnavailable} allSeverities />
      <a
        href={securityHref(image)}
        className="shrink-0 text-xs font-medium underline underline-offset-2"
        aria-label={t("stacks.detail.scanDetailsOf", { image })}
      >
        {t("stacks.detail.scanDetails")}
      </a>
    </span>
  );
}

/**
 * What a service runs now, under its image: the container's state, the running digest (whole on
 * hover), and since when, linking to the deploy that brought it.
 */
function RunningNow({ running }: { running: RunningService | undefined }) {
  const t = useT();
  const label = useStateLabel();
  if (!running) return null;
  const state = describeContainer(running.state, running.status);
  return (
    <span className="mt-0.5 flex min-w-0 flex-wrap items-center gap-x-2 text-xs">
      <span title={running.status ?? undefined}>
        <StatusMark tone={state.tone} label={label(state)} />
      </span>
      {running.digest && (
        <span className="text-fg-muted">
          <DigestText digest={running.digest} />
        </span>
      )}
      {running.since && (
        <span className="text-fg-muted">
          {running.runId ? (
            <a href={runHref(running.runId)} className="underline underline-offset-2 hover:text-fg">
              {t("stacks.detail.since")} <RelativeTime date={running.since} />
            </a>
          ) : (
            <>
              {t("stacks.detail.since")} <RelativeTime date={running.since} />
            </>
          )}
        </span>
      )}
    </span>
  );
}

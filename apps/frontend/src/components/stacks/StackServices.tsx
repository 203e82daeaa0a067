import { useT } from "../I18nProvider.tsx";
import type { ImageScan } from "../security/scan-model.ts";
import { Card } from "../ui/Card.tsx";
import { Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "../ui/Table.tsx";
import type { Stack } from "./model.ts";
import { ImageRef } from "./ServiceImage.tsx";
import { UpdateMarker } from "./UpdateMarker.tsx";
import { ImageVulnerabilities, securityHref } from "./Vulnerabilities.tsx";

export interface StackServicesProps {
  stack: Stack;
  scans: Map<string, ImageScan>;
  scansUnavailable: boolean;
}

/** Each service with its image, update marker and the image's vulnerabilities (details on Security). */
export function StackServices({ stack, scans, scansUnavailable }: StackServicesProps) {
  const t = useT();
  return (
    <Card title={t("stacks.detail.services", { count: stack.info.services.length })} flush>
      {stack.info.services.length === 0 ? (
        <p className="px-4 py-3 text-sm text-fg-muted">{t("stacks.noServices")}</p>
      ) : (
        <>
          <ServiceList stack={stack} scans={scans} scansUnavailable={scansUnavailable} />
          <ServiceTable stack={stack} scans={scans} scansUnavailable={scansUnavailable} />
        </>
      )}
    </Card>
  );
}

/** Wide screens: one row per service. */
function ServiceTable({ stack, scans, scansUnavailable }: StackServicesProps) {
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
function ServiceList({ stack, scans, scansUnavailable }: StackServicesProps) {
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
}: { image: string } & Omit<StackServicesProps, "stack">) {
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

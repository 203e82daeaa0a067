/**
 * Every design-system component in use, with sample data: the reference for page authors and what
 * the browser tests photograph in both themes. Sample content is English on purpose (it is data, not
 * interface text); the components' own words follow the chosen language.
 */
import { type ReactNode, useState } from "react";
import { AppProviders, type IslandProps } from "./AppProviders.tsx";
import { RetryIcon } from "./icons.tsx";
import {
  Badge,
  Button,
  buttonClasses,
  Card,
  Code,
  ConfirmDialog,
  EmptyState,
  ErrorState,
  Spinner,
  StatusMark,
  showToast,
  Table,
  TableBody,
  TableContainer,
  TableHead,
  Td,
  Th,
  type Tone,
  Tr,
} from "./ui/index.ts";

export function DesignSystemGallery({ lang, role }: IslandProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <div className="flex flex-col gap-6">
        <ButtonsSection />
        <StatusSection />
        <StacksTableSection />
        <StatesSection />
      </div>
    </AppProviders>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card title={title}>
      <div className="flex flex-wrap items-center gap-3">{children}</div>
    </Card>
  );
}

function ButtonsSection() {
  const [loading, setLoading] = useState(false);
  const pretendWork = () => {
    setLoading(true);
    setTimeout(() => {
      setLoading(false);
      showToast({ tone: "success", title: "Done", description: "The loading button finished its work." });
    }, 1_500);
  };
  return (
    <Section title="Button">
      <Button variant="primary" onClick={() => showToast({ title: "Primary button pressed" })}>
        Primary
      </Button>
      <Button onClick={() => showToast({ title: "Secondary button pressed" })}>Secondary</Button>
      <Button variant="ghost" onClick={() => showToast({ title: "Ghost button pressed" })}>
        Ghost
      </Button>
      <Button variant="danger" onClick={() => showToast({ tone: "danger", title: "Danger button pressed" })}>
        Danger
      </Button>
      <Button loading={loading} icon={<RetryIcon className="size-4" />} onClick={pretendWork}>
        {loading ? "Working…" : "Loading state"}
      </Button>
      <Button size="sm" onClick={() => showToast({ title: "Small button pressed" })}>
        Small
      </Button>
      <a className={buttonClasses("secondary", "sm")} href="/settings">
        Link as button
      </a>
      <Spinner label="Loading" />
    </Section>
  );
}

const toneExamples: { tone: Tone; word: string; severity: string }[] = [
  { tone: "success", word: "Running", severity: "Low" },
  { tone: "progress", word: "Deploying", severity: "Queued" },
  { tone: "neutral", word: "Stopped", severity: "Unknown" },
  { tone: "warning", word: "Unhealthy", severity: "Medium" },
  { tone: "danger", word: "Failed", severity: "High" },
  { tone: "critical", word: "Critical", severity: "Critical" },
];

function StatusSection() {
  return (
    <Section title="StatusMark and Badge">
      {toneExamples.map(({ tone, word }) => (
        <StatusMark key={tone} tone={tone} label={word} />
      ))}
      {toneExamples.map(({ tone, severity }, index) => (
        <Badge key={tone} tone={tone}>
          {severity} {index * 3}
        </Badge>
      ))}
      {(["success", "progress", "neutral", "warning", "danger", "critical"] as const).map((tone) => (
        <Button
          key={tone}
          size="sm"
          onClick={() =>
            showToast({ tone, title: `A ${tone} toast`, description: "It goes away by itself." })
          }
        >
          Toast: {tone}
        </Button>
      ))}
    </Section>
  );
}

const sampleStacks = Array.from({ length: 18 }, (_, index) => {
  const example = toneExamples[index % toneExamples.length]!;
  return {
    name: `stack-${String(index + 1).padStart(2, "0")}`,
    tone: example.tone === "critical" ? ("danger" as const) : example.tone,
    state: example.tone === "critical" ? "Failed" : example.word,
    image: `registry.example.com/team/service-${index + 1}:1.${index}.0@sha256:${"ab12".repeat(16)}`,
    services: (index % 4) + 1,
    update: index % 3 === 0,
  };
});

function StacksTableSection() {
  const [confirming, setConfirming] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const redeploy = () => {
    setPending(true);
    setTimeout(() => {
      showToast({ tone: "success", title: `Redeployed ${confirming}` });
      setPending(false);
      setConfirming(null);
    }, 1_000);
  };
  return (
    <Card title="Table, Code, CopyButton, ConfirmDialog" flush>
      <TableContainer className="max-h-80 rounded-none border-0">
        <Table aria-label="Sample stacks">
          <TableHead>
            <tr>
              <Th>Stack</Th>
              <Th>State</Th>
              <Th numeric>Services</Th>
              <Th>Image</Th>
              <Th>Update</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </TableHead>
          <TableBody>
            {sampleStacks.map((stack) => (
              <Tr key={stack.name}>
                <Td className="font-medium">{stack.name}</Td>
                <Td>
                  <StatusMark tone={stack.tone} label={stack.state} />
                </Td>
                <Td numeric>{stack.services}</Td>
                <Td className="max-w-72">
                  <Code
                    value={stack.image}
                    truncate
                    copyable
                    copyLabel={`Copy image reference of ${stack.name}`}
                  />
                </Td>
                <Td>{stack.update ? <Badge tone="warning">Update available</Badge> : null}</Td>
                <Td className="text-right">
                  <Button size="sm" onClick={() => setConfirming(stack.name)}>
                    Redeploy
                  </Button>
                </Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <ConfirmDialog
        open={confirming !== null}
        tone="danger"
        title={`Redeploy ${confirming}?`}
        description="Redeploy takes the whole stack down, then brings it up again: its services are unavailable for a moment."
        confirmLabel="Redeploy"
        pending={pending}
        onConfirm={redeploy}
        onCancel={() => setConfirming(null)}
      />
    </Card>
  );
}

function StatesSection() {
  const [retrying, setRetrying] = useState(false);
  const retry = () => {
    setRetrying(true);
    setTimeout(() => setRetrying(false), 1_500);
  };
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <EmptyState
        title="No Komodo connection yet"
        description="Stackgate lists your stacks once it can reach your Komodo Core."
        action={
          <a className={buttonClasses("primary")} href="/settings">
            Connect
          </a>
        }
      />
      <ErrorState
        title="Couldn't load the stacks"
        description="Komodo answered 502: the upstream is unreachable. Check its address in Settings."
        onRetry={retry}
        retrying={retrying}
      />
    </div>
  );
}

/**
 * The chat services that take a JSON POST on a webhook URL: Slack (and Mattermost and Rocket.Chat,
 * which take Slack's messages), Discord and Microsoft Teams workflows. Each lays out the same
 * message in its own documented format.
 */

import type { AlertMessage } from "../message.ts";
import { plainText } from "../message.ts";
import { postJson, type Send } from "./attempt.ts";

type WebhookSecrets = { webhookUrl: string };

/** Cuts text to at most `max` characters, marking the cut with "…". */
export const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

// Slack: https://api.slack.com/reference/block-kit/blocks, https://api.slack.com/reference/surfaces/formatting

const slackEscape = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

export function slackPayload(message: AlertMessage) {
  return {
    // Shown in notifications, and all that Mattermost and Rocket.Chat show.
    text: slackEscape(`${message.title}\n${plainText(message)}`),
    blocks: [
      { type: "header", text: { type: "plain_text", text: cut(message.title, 150), emoji: true } },
      { type: "section", text: { type: "mrkdwn", text: cut(slackEscape(message.lines.join("\n")), 3000) } },
      ...(message.facts.length > 0
        ? [
            {
              type: "section",
              fields: message.facts.slice(0, 10).map(({ label, value }) => ({
                type: "mrkdwn",
                text: cut(`*${slackEscape(label)}*\n${slackEscape(value)}`, 2000),
              })),
            },
          ]
        : []),
      {
        type: "actions",
        elements: [
          {
            type: "button",
            text: { type: "plain_text", text: cut(message.link.label, 75) },
            url: message.link.url,
          },
        ],
      },
    ],
  };
}

export const sendSlack: Send<unknown, WebhookSecrets> = ({ secrets }, message, context) =>
  postJson(
    { service: "Slack", url: secrets.webhookUrl, secrets: [secrets.webhookUrl], body: slackPayload(message) },
    context,
  );

// Discord: https://discord.com/developers/docs/resources/webhook#execute-webhook,
// https://discord.com/developers/docs/resources/message#embed-object-embed-limits

const DISCORD_COLOURS: Record<AlertMessage["tone"], number> = {
  danger: 0xd92d20,
  warning: 0xdc6803,
  success: 0x079455,
  info: 0x1570ef,
};

/** Discord reads markdown in embeds: a stack name or a reason must not turn into formatting. */
const discordEscape = (text: string) => text.replace(/([\\*_~`|>#[\]])/g, "\\$1");

export function discordPayload(message: AlertMessage, now: number) {
  return {
    username: "Stackgate",
    // Never ping @everyone or a role because a reason happened to name one.
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: cut(message.title, 256),
        description: cut(discordEscape(message.lines.join("\n")), 2048),
        url: message.link.url,
        color: DISCORD_COLOURS[message.tone],
        fields: message.facts.slice(0, 25).map(({ label, value }) => ({
          name: cut(label, 256),
          value: cut(discordEscape(value), 1024) || "-",
          inline: true,
        })),
        footer: { text: "Stackgate" },
        timestamp: new Date(now).toISOString(),
      },
    ],
  };
}

export const sendDiscord: Send<unknown, WebhookSecrets> = ({ secrets }, message, context) => {
  const url = new URL(secrets.webhookUrl);
  // With wait=true Discord answers the message it created, which proves it was posted.
  url.searchParams.set("wait", "true");
  return postJson(
    {
      service: "Discord",
      url: url.href,
      secrets: [secrets.webhookUrl, url.href],
      body: discordPayload(message, context.now()),
      accepted: (answer) =>
        typeof answer === "object" && answer !== null && typeof (answer as { id?: unknown }).id === "string"
          ? { delivered: true, detail: `message ${(answer as { id: string }).id}` }
          : { delivered: true },
    },
    context,
  );
};

// Microsoft Teams, through a workflow "when a Teams webhook request is received":
// https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using,
// https://adaptivecards.io/explorer/

const TEAMS_COLOURS: Record<AlertMessage["tone"], string> = {
  danger: "Attention",
  warning: "Warning",
  success: "Good",
  info: "Accent",
};

export function teamsPayload(message: AlertMessage) {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          msteams: { width: "Full" },
          body: [
            {
              type: "TextBlock",
              text: message.title,
              weight: "Bolder",
              size: "Medium",
              color: TEAMS_COLOURS[message.tone],
              wrap: true,
              style: "heading",
            },
            ...message.lines.map((line) => ({ type: "TextBlock", text: line, wrap: true, spacing: "Small" })),
            ...(message.facts.length > 0
              ? [
                  {
                    type: "FactSet",
                    facts: message.facts.map(({ label, value }) => ({ title: label, value })),
                  },
                ]
              : []),
          ],
          actions: [{ type: "Action.OpenUrl", title: message.link.label, url: message.link.url }],
        },
      },
    ],
  };
}

export const sendTeams: Send<unknown, WebhookSecrets> = ({ secrets }, message, context) =>
  postJson(
    { service: "Teams", url: secrets.webhookUrl, secrets: [secrets.webhookUrl], body: teamsPayload(message) },
    context,
  );

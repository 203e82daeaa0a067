CREATE TABLE `alert_channel` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`enabled` integer NOT NULL,
	`events` text NOT NULL,
	`stacks` text NOT NULL,
	`language` text NOT NULL,
	`vulnerability_severity` text DEFAULT 'critical' NOT NULL,
	`alert_on_first_scan` integer DEFAULT false NOT NULL,
	`settings` text NOT NULL,
	`sealed_secrets` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_channel_created_at_idx` ON `alert_channel` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `alert_delivery` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event` text NOT NULL,
	`stack` text,
	`summary` text NOT NULL,
	`status` text NOT NULL,
	`attempts` text NOT NULL,
	`runner` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `alert_channel`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_delivery_event_idx` ON `alert_delivery` (`channel_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `alert_delivery_channel_idx` ON `alert_delivery` (`channel_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `alert_delivery_runner_idx` ON `alert_delivery` (`runner`);--> statement-breakpoint
CREATE TABLE `alert_update_seen` (
	`stack` text NOT NULL,
	`service` text NOT NULL,
	`image` text NOT NULL,
	`seen_at` integer NOT NULL,
	PRIMARY KEY(`stack`, `service`)
);

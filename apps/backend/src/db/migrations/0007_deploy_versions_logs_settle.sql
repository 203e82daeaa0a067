CREATE TABLE `deploy_change` (
	`run_id` text NOT NULL,
	`stack` text NOT NULL,
	`service` text NOT NULL,
	`image` text NOT NULL,
	`from_digest` text,
	`to_digest` text,
	`changed` integer NOT NULL,
	PRIMARY KEY(`run_id`, `service`)
);
--> statement-breakpoint
CREATE INDEX `deploy_change_service_idx` ON `deploy_change` (`stack`,`service`,`to_digest`);--> statement-breakpoint
CREATE TABLE `deploy_log` (
	`run_id` text PRIMARY KEY NOT NULL,
	`stages` text NOT NULL,
	`truncated` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `commit_from` text;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `commit_to` text;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `commit_message` text;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `settle_state` text;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `settle_reason` text;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `settle_until` integer;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `komodo_updates` text;
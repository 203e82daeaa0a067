ALTER TABLE `audit_log` ADD `actor_email` text;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `actor_email` text;--> statement-breakpoint
ALTER TABLE `deploy_history` ADD `key_id` text;
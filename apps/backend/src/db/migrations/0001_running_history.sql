ALTER TABLE `deploy_history` ADD `running` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `deploy_history_running_idx` ON `deploy_history` (`running`) WHERE running = 1;
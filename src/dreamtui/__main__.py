from dreamtui.cli import main

main()
